"""The A/B tests' SPRT on simulated bots of known strength: its error rates hold, and pairing the
games by deal saves games; its pieces (scores, bounds, Elo, clusters) on hand-made results."""

from __future__ import annotations

import math

import numpy as np
import pytest

from arena.ratings import sprt

H = sprt.Hypotheses(elo0=0, elo1=10, alpha=0.05, beta=0.05)
RUNS = 500
TOLERANCE = 0.02
"""Over 500 runs an error rate's standard error is about 0.01."""
LUCK = 1.5
"""Each deal's luck in log-odds for one seat: a card game's deal often decides more than skill."""


@pytest.mark.parametrize("paired", [True, False], ids=["paired", "unpaired"])
def test_false_positives_at_h0_stay_within_alpha(paired: bool) -> None:
    runs = sprt.simulate(
        H, H.elo0, runs=RUNS, luck=LUCK, paired=paired, max_games=200_000, rng=np.random.default_rng(11)
    )
    assert np.all(runs.verdicts != 0)  # every run decided before the cap
    assert runs.accepted_h1 <= H.alpha + TOLERANCE


@pytest.mark.parametrize("paired", [True, False], ids=["paired", "unpaired"])
def test_power_at_h1_is_at_least_one_minus_beta(paired: bool) -> None:
    runs = sprt.simulate(
        H, H.elo1, runs=RUNS, luck=LUCK, paired=paired, max_games=200_000, rng=np.random.default_rng(12)
    )
    assert runs.accepted_h1 >= 1 - H.beta - TOLERANCE


def test_pairing_by_deal_needs_fewer_games_than_unpaired_games() -> None:
    rng = np.random.default_rng(13)
    common = {"runs": RUNS, "luck": LUCK, "max_games": 200_000, "rng": rng}
    paired = sprt.simulate(H, H.elo1, paired=True, **common)  # type: ignore[arg-type]
    unpaired = sprt.simulate(H, H.elo1, paired=False, **common)  # type: ignore[arg-type]
    factor = unpaired.mean_games / paired.mean_games
    print(
        f"games to a verdict at H1, luck {LUCK}: paired {paired.mean_games:.0f}, unpaired "
        f"{unpaired.mean_games:.0f}: a factor of {factor:.2f}"
    )
    assert factor > 1.2
    no_luck = {"runs": RUNS, "luck": 0.0, "max_games": 200_000, "rng": rng}
    same = sprt.simulate(H, H.elo1, paired=True, **no_luck).mean_games  # type: ignore[arg-type]
    assert same / sprt.simulate(H, H.elo1, paired=False, **no_luck).mean_games == pytest.approx(1, abs=0.15)  # type: ignore[arg-type]


def test_a_clear_winner_is_found_in_a_few_deals_and_the_cap_stops_a_test() -> None:
    runs = sprt.simulate(
        H, 300, runs=50, luck=LUCK, paired=True, max_games=10_000, rng=np.random.default_rng(3)
    )
    assert np.all(runs.verdicts == 1) and runs.games.max() < 400
    capped = sprt.simulate(H, 5, runs=50, luck=LUCK, paired=True, max_games=100, rng=np.random.default_rng(4))
    assert np.all(capped.verdicts == 0) and np.all(capped.games == 100)


def test_strength_gives_the_expected_score_over_the_deals_luck() -> None:
    edge = sprt.strength_for(50, 2.0)
    draws = np.random.default_rng(5).normal(0, 2.0, 400_000)
    score = np.mean(1 / (1 + np.exp(-(edge + draws))))
    assert score == pytest.approx(float(sprt.expected_score(50)), abs=0.002)
    assert edge > 50 * math.log(10) / 400  # luck flattens: a larger edge for the same score


def test_bounds_elo_and_the_verdicts() -> None:
    lower, upper = H.bounds
    assert lower == pytest.approx(math.log(0.05 / 0.95)) and upper == pytest.approx(math.log(0.95 / 0.05))
    assert float(sprt.elo_of(sprt.expected_score(123.0))) == pytest.approx(123.0)
    empty = sprt.state(H, [], 0)
    assert empty.verdict == "" and empty.llr == 0 and math.isnan(empty.elo)
    winning = sprt.state(H, [1.0, 0.75] * 200, 800)
    assert winning.verdict == sprt.BETTER and winning.elo_low < winning.elo < winning.elo_high
    even = sprt.state(H, [0.5, 0.25, 0.75] * 3000, 18000)
    assert even.verdict == sprt.NO_DIFFERENCE and even.elo == pytest.approx(0, abs=1e-9)
    losing = sprt.state(H, [0.0, 0.25] * 200, 800)
    assert losing.verdict == sprt.WORSE and losing.elo_high < 0
    assert sprt.llr_path(H, [1.0, 0.75] * 200)[-1] == pytest.approx(winning.llr)


def test_a_few_equal_deals_do_not_end_a_test() -> None:
    """Two deals won outright have no spread: the shrunk variance keeps the LLR small."""
    assert sprt.state(H, [1.0, 1.0], 4).verdict == ""
    assert sprt.state(H, [1.0] * 12, 24).llr < H.bounds[1]


def test_cluster_means_average_each_deal_in_first_seen_order() -> None:
    means = sprt.cluster_means([1, 0, 1, 1, 0.5, 0.5], [7, 7, 3, 3, 9, 9])
    assert means.tolist() == [0.5, 1.0, 0.5]


@pytest.mark.parametrize(
    ("elo0", "elo1", "alpha", "beta"),
    [(5, 0, 0.05, 0.05), (0, 5, 0, 0.05), (0, 5, 0.05, 0.9), (0, math.inf, 0.05, 0.05)],
)
def test_nonsense_parameters_are_refused_by_name(elo0: float, elo1: float, alpha: float, beta: float) -> None:
    with pytest.raises(sprt.SprtError, match=r"elo0|alpha|beta|elo1"):
        sprt.Hypotheses(elo0, elo1, alpha, beta)
