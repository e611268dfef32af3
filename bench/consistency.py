"""Consistency flags on fields of known strength: ``python bench/consistency.py`` (``--seeds N``).

On ``tests/ratings/test_consistency.py``'s fields, over more seeds, it prints the share of bots
flagged on clean fields (goal: under 1%) and the share of seeds in which the cheats of issue 34 are
flagged, and the time ``flags`` takes next to the fit's (``--large``: on a million results too).

The fields in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "ratings")]

import numpy as np  # noqa: E402
from test_consistency import (  # noqa: E402
    SHAPES,
    clean_field,
    drift_field,
    exploiter_field,
    trio_field,
)

from arena.ratings.consistency import flags  # noqa: E402
from arena.ratings.fit import fit  # noqa: E402
from arena.ratings.simulate import simulate_ffa, simulate_teams  # noqa: E402


def upper95(count: int, total: int) -> float:
    """A 95% upper bound on a rate seen ``count`` times in ``total`` (Poisson, exact for small
    counts by bisection on the gamma tail)."""
    low, high = 0.0, 10.0 + 3.0 * count
    for _ in range(80):
        mean = (low + high) / 2
        # P(X <= count) for X ~ Poisson(mean)
        term = total_p = np.exp(-mean)
        for k in range(1, count + 1):
            term *= mean / k
            total_p += term
        low, high = (mean, high) if total_p > 0.05 else (low, mean)
    return high / total


def clean(seeds: int) -> None:
    print("clean fields: share of 40 bots flagged (goal under 1%), over", seeds, "seeds")
    fit_s = flag_s = 0.0
    all_false = all_total = 0
    for sd in (250.0, 100.0, 500.0):
        for shape in SHAPES:
            line = []
            for games in (30, 100, 300):
                false = total = 0
                for seed in range(seeds):
                    results = clean_field(shape, games, 1000 + seed, sd_elo=sd)
                    start = time.perf_counter()
                    ladder = fit(results)
                    middle = time.perf_counter()
                    found = flags(ladder, results)
                    flag_s += time.perf_counter() - middle
                    fit_s += middle - start
                    false += sum(flag is not None for flag in found)
                    total += len(found)
                all_false, all_total = all_false + false, all_total + total
                line.append(
                    f"{games:>3} games {100 * false / total:4.2f}% (<{100 * upper95(false, total):.2f}%)"
                )
            print(f"  SD {sd:3.0f}  {shape:<23} " + "  ".join(line))
    share = f"{100 * all_false / all_total:.2f}% (<{100 * upper95(all_false, all_total):.2f}%)"
    print(f"  all: {all_false} of {all_total} bots flagged, {share}")
    print(f"  time: fits {fit_s:.1f} s, flags {flag_s:.1f} s")


def large() -> None:
    """The time of ``flags`` next to the fit's on a million results of 1,000 bots (bench/ratings.py's
    fields: edible-like, 2 to 8 seats with ties; kozel-like, 2 vs 2 with draws)."""
    rng = np.random.default_rng(0)
    theta = rng.normal(0.0, 1.0, 1000)
    fields = {
        "edible-like": simulate_ffa(
            theta, 25_000, 40, range(2, 9), rng, tail_tie=0.2, pair_tie=0.1, duplicate=True, luck=0.3
        ),
        "kozel-like": simulate_teams(theta, 25_000, 40, rng, draw_nu=0.2, duplicate=True, luck=0.3),
    }
    for name, results in fields.items():
        start = time.perf_counter()
        ladder = fit(results)
        middle = time.perf_counter()
        found = flags(ladder, results)
        end = time.perf_counter()
        flagged = sum(flag is not None for flag in found)
        print(f"  {name}: fit {middle - start:.2f} s, flags {end - middle:.2f} s, {flagged} of 1000 flagged")


def cheats(seeds: int) -> None:
    print("cheats: share of seeds flagged as the issue asks, over", seeds, "seeds")
    for victim_games in (50, 100, 300):
        named = 0
        for seed in range(seeds):
            found = flags(fit(results := exploiter_field(seed, victim_games)), results)
            named += found[0] is not None and found[0].opponent == 1
        print(f"  exploiter, {victim_games:>3} games against its victim: named {named / seeds:.2f}")
    trio = drift = 0
    for seed in range(seeds):
        found = flags(fit(results := trio_field(seed)), results)
        trio += all(flag is not None and flag.opponent in {0, 1, 2} for flag in found[:3])
        found = flags(fit(results := drift_field(seed)), results)
        drift += found[0] is not None and found[0].opponent is None
    print(f"  rock-paper-scissors trio, all three flagged: {trio / seeds:.2f}")
    print(f"  +300 then -100 Elo, flagged with its halves: {drift / seeds:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, default=50, help="fields per line (default 50)")
    parser.add_argument("--large", action="store_true", help="also time a million results of 1,000 bots")
    args = parser.parse_args()
    clean(args.seeds)
    cheats(args.seeds)
    if args.large:
        print("a million results, 1,000 bots (wall-clock; load average", os.getloadavg()[0], ")")
        large()


if __name__ == "__main__":
    main()
