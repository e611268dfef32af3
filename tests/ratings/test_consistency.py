"""Consistency flags (``arena.ratings.consistency``) on fields of known strength: an exploiter, a
rock-paper-scissors trio and a bot whose strength changed are flagged, naming the opponent or the
period; fields whose results follow the model flag under 1% of their bots.

The fields with a cheat are two-seat games drawn from a matrix of win probabilities (``pairwise``, this
file's generator); the clean ones come from ``arena.ratings.simulate`` (known strengths). ``bench/
consistency.py`` runs the same fields over more seeds.
"""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings.consistency import Flag, flags, threshold
from arena.ratings.fit import fit
from arena.ratings.model import ELO_PER_NAT
from arena.ratings.results import FloatArray, IntArray, Results
from arena.ratings.simulate import simulate_ffa, simulate_teams

BOTS = 40


def pairwise(pairs: IntArray, win: FloatArray, rng: np.random.Generator, n_bots: int) -> Results:
    """Two-seat games, in this order: ``pairs[g]`` met and the first won with probability ``win[g]``."""
    first_won = rng.random(len(pairs)) < win
    ranks = np.where(first_won[:, None], np.array([[0, 1]]), np.array([[1, 0]]))
    return Results.from_games(pairs.tolist(), ranks.tolist(), bot_ids=list(range(n_bots)))


def random_pairs(rng: np.random.Generator, games: int, n_bots: int) -> IntArray:
    """``games`` pairs of distinct bots, uniformly."""
    first = rng.integers(0, n_bots, games)
    second = (first + rng.integers(1, n_bots, games)) % n_bots
    return np.stack([first, second], axis=1)


def logistic(elo_difference: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-elo_difference / ELO_PER_NAT)))


def exploiter_field(seed: int, victim_games: int = 300) -> Results:
    """Bot 0 is even with everyone but bot 1, which it beats 97% of the time; they meet
    ``victim_games`` times among 40 even bots' 2,000 other games."""
    rng = np.random.default_rng(seed)
    pairs = np.concatenate([random_pairs(rng, 2000, BOTS), np.tile([0, 1], (victim_games, 1))])
    pairs = pairs[rng.permutation(len(pairs))]
    win = np.full(len(pairs), 0.5)
    win[(pairs[:, 0] == 0) & (pairs[:, 1] == 1)] = 0.97
    win[(pairs[:, 0] == 1) & (pairs[:, 1] == 0)] = 0.03
    return pairwise(pairs, win, rng, BOTS)


def trio_field(seed: int, trio_games: int = 60) -> Results:
    """Bots 0, 1 and 2 play rock-paper-scissors (each beats the next 80% of the time, ``trio_games``
    games per pair) and are even with the other 37; 2,000 games among all 40 besides."""
    rng = np.random.default_rng(seed)
    trio = np.array([[0, 1], [1, 2], [2, 0]])
    pairs = np.concatenate([random_pairs(rng, 2000, BOTS), np.repeat(trio, trio_games, axis=0)])
    pairs = pairs[rng.permutation(len(pairs))]
    win = np.full(len(pairs), 0.5)
    for a, b in trio.tolist():
        win[(pairs[:, 0] == a) & (pairs[:, 1] == b)] = 0.8
        win[(pairs[:, 0] == b) & (pairs[:, 1] == a)] = 0.2
    return pairwise(pairs, win, rng, BOTS)


def drift_field(seed: int) -> Results:
    """Bot 0 is +300 Elo for its first 50 games and -100 for its next 50 (against random others,
    spread through the season); the other 39 bots, of Elo SD 100, play 1,900 games among themselves."""
    rng = np.random.default_rng(seed)
    elo = np.concatenate([[0.0], rng.normal(0.0, 100.0, BOTS - 1)])
    others = 1 + random_pairs(rng, 1900, BOTS - 1)
    mine = np.stack([np.zeros(100, np.int64), rng.integers(1, BOTS, 100)], axis=1)
    pairs = np.concatenate([others, mine])[rng.permutation(2000)]
    strength = np.repeat(elo[None, :], len(pairs), axis=0)
    played = np.flatnonzero(pairs[:, 0] == 0)
    strength[played[:50], 0] = 300.0
    strength[played[50:], 0] = -100.0
    rows = np.arange(len(pairs))
    win = logistic(strength[rows, pairs[:, 0]] - strength[rows, pairs[:, 1]])
    return pairwise(pairs, win, rng, BOTS)


SHAPES = ("two seats", "four-seat free-for-all", "2 vs 2")


def clean_field(shape: str, games_per_bot: int, seed: int, sd_elo: float = 250.0) -> Results:
    """40 bots of Elo SD ``sd_elo`` (known strengths) and about ``games_per_bot`` games each, in
    matches of 10 games: two seats; four seats with edible's ties (a fifth of the games "the winner,
    then the rest tied", a tenth two neighbours tied); or 2 vs 2 with draws and duplicate deals."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, sd_elo / ELO_PER_NAT, BOTS)
    if shape == "two seats":
        return simulate_ffa(theta, BOTS * games_per_bot // 20, 10, 2, rng)
    if shape == "four-seat free-for-all":
        return simulate_ffa(theta, BOTS * games_per_bot // 40, 10, 4, rng, tail_tie=0.2, pair_tie=0.1)
    return simulate_teams(theta, BOTS * games_per_bot // 40, 10, rng, draw_nu=0.3, duplicate=True, luck=0.3)


def flagged(results: Results) -> list[Flag | None]:
    return flags(fit(results), results)


def test_the_exploiter_is_flagged_naming_its_victim() -> None:
    results = exploiter_field(seed=1)
    ladder = fit(results)
    assert ladder.elo[0] - np.median(ladder.elo) > 150  # the farmed rating the issue found
    found = flags(ladder, results)
    exploiter, victim = found[0], found[1]
    assert exploiter is not None and exploiter.opponent == 1
    assert exploiter.won > 0.9 * exploiter.games and exploiter.standard_errors > threshold(1)
    assert victim is not None and victim.opponent == 0 and victim.standard_errors < 0
    assert exploiter.text(lambda bot: f"bot{bot}").startswith("inconsistent results against bot1: won ")
    assert sum(flag is not None for flag in found) == 2


def test_a_rock_paper_scissors_trio_is_flagged() -> None:
    results = trio_field(seed=2)
    ladder = fit(results)
    assert np.ptp(ladder.elo[:3]) < 100  # shown as three near-equal bots
    found = flags(ladder, results)
    for bot in range(3):
        flag = found[bot]
        assert flag is not None and flag.opponent in {0, 1, 2} - {bot}
    assert all(flag is None for flag in found[3:])


def test_a_bot_whose_strength_changed_is_flagged_with_its_period() -> None:
    results = drift_field(seed=3)
    ladder = fit(results)
    assert ladder.games[0] == 100
    assert ladder.elo[0] - 1500 > 0  # well above its current strength (-100 from the field's mean)
    flag = flags(ladder, results)[0]
    assert flag is not None and flag.opponent is None
    assert flag.games == 50 and flag.second_games == 50
    assert flag.departure > 100 and flag.second_departure < -100
    text = flag.text(str)
    assert text.startswith("inconsistent results between its first 50 games (+") and "its next 50 (-" in text


@pytest.mark.parametrize("shape", SHAPES)
def test_clean_fields_flag_under_one_percent_of_bots(shape: str) -> None:
    """Fields whose results follow the model: 30 and 300 games a bot, 10 fields each (800 bots a
    shape)."""
    false = total = 0
    for games_per_bot in (30, 300):
        for seed in range(10):
            found = flagged(clean_field(shape, games_per_bot, seed))
            false += sum(flag is not None for flag in found)
            total += len(found)
    assert total == 800
    assert false / total < 0.01, f"{false} of {total} bots flagged"


def test_threshold_grows_with_the_tests_a_bot_has() -> None:
    assert threshold(1) == pytest.approx(3.09, abs=0.01)
    assert threshold(40) == pytest.approx(4.06, abs=0.01)
    assert threshold(0) == threshold(1)


@pytest.mark.parametrize(
    ("seats", "ranks", "teams"),
    [
        ([[0, 1], [0, 1]], [[0, 0], [0, 0]], None),  # every game a tie: no trial at all
        ([[0, 1]], [[0, 1]], None),
        ([[0, 1, 2]], [[0, 1, 1]], None),
        ([[0, 1, 2, 3]] * 3, [[0, 0, 0, 0]] * 3, [[0, 1, 0, 1]] * 3),  # drawn kozel games
        ([[0, 1, 0, 1]], [[2, 0, 2, 0]], [[0, 1, 0, 1]]),  # one bot in both seats of each side
    ],
)
def test_fields_too_small_to_test_flag_no_one(
    seats: list[list[int]], ranks: list[list[int]], teams: list[list[int]] | None
) -> None:
    results = Results.from_games(seats, ranks, teams=teams, bot_ids=list(range(5)))  # bot 4 has no games
    assert flagged(results) == [None] * 5
