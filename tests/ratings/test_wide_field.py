"""The ends of a wide field: at an Elo spread of 800 (SD) with 30 games a bot, the 95% intervals of the
best and the worst fifths cover the truth, in two-seat, winner-only and 2 vs 2 games, and so do those
of the bots that never lost (issue 34 item 7)."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings.fit import fit
from arena.ratings.model import ELO_PER_NAT, Z95
from arena.ratings.results import BoolArray, Results
from arena.ratings.simulate import simulate_ffa, simulate_teams

BOTS = 100
SEEDS = 20
"""Fields per shape: 400 bots a fifth, a binomial standard error of 0.011 at a coverage of 0.95, so
0.93 is over two and a half of them below the 0.96 to 1.00 measured."""


def wide_field(shape: str, seed: int) -> tuple[np.ndarray, Results]:
    """True log-strengths of SD 800 Elo and 30 games a bot, in matches of 10 games: two seats,
    4-seat free-for-all where only the winner is known (the rest tied), or 2 vs 2 with draws."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, 800.0 / ELO_PER_NAT, size=BOTS)
    if shape == "two seats":
        return theta, simulate_ffa(theta, 150, 10, 2, rng)
    if shape == "winner only":
        return theta, simulate_ffa(theta, 75, 10, 4, rng, tail_tie=1.0)
    return theta, simulate_teams(theta, 75, 10, rng, draw_nu=0.3)


def unbeaten(results: Results) -> BoolArray:
    """The bots that played and were never placed below another unit."""
    played = np.zeros(BOTS, dtype=bool)
    beaten = np.zeros(BOTS, dtype=bool)
    for lo, hi in zip(results.offsets[:-1], results.offsets[1:], strict=True):
        bots, ranks = results.bots[lo:hi], results.ranks[lo:hi]
        played[bots] = True
        beaten[bots[ranks > ranks.min()]] = True
    return played & ~beaten


@pytest.mark.parametrize("shape", ["two seats", "winner only", "2 vs 2"])
def test_the_ends_of_a_wide_field_are_covered(shape: str) -> None:
    """Each end fifth at least 0.93 (here 0.96 to 1.00; with the prior's old floor of half a game 0.57
    to 0.73), and every unbeaten bot's interval holds its true Elo (over 40 fields a shape 1,307 such
    bots, all covered; with the old floor 11 to 15% were not, fitted 250 to 310 Elo low on average)."""
    hits, counts = np.zeros(5), np.zeros(5)
    unbeaten_covered: list[bool] = []
    for seed in range(SEEDS):
        theta, results = wide_field(shape, 3000 + seed)
        ladder = fit(results, BOTS)
        truth = 1500 + ELO_PER_NAT * (theta - theta.mean())
        covered = np.abs(ladder.elo - truth) < Z95 * ladder.se
        fifth = np.argsort(np.argsort(theta)) * 5 // BOTS
        hits += np.bincount(fifth, weights=covered, minlength=5)
        counts += np.bincount(fifth, minlength=5)
        unbeaten_covered.extend(covered[unbeaten(results)].tolist())
    coverage = hits / counts
    assert coverage[0] >= 0.93 and coverage[4] >= 0.93, coverage
    assert len(unbeaten_covered) > 20 and all(unbeaten_covered), np.mean(unbeaten_covered)
