"""A/B tests' SPRT: games to a verdict paired by deal against unpaired, ``python bench/sprt.py``.

``--runs`` and ``--elo1`` set the simulation (``arena.ratings.sprt.simulate``): for each amount of a
deal's luck it prints the share of runs accepting H1 and the mean games to a verdict, paired and
unpaired, and their factor. ``--db URL --test ID`` also reads a real test's landed deals from a store
and prints the factor by which its pairing cuts the games a verdict needs.

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.ratings import sprt  # noqa: E402
from arena.store.db import Store  # noqa: E402
from arena.store.models import AbTest  # noqa: E402
from arena.tournament.abtest import landed  # noqa: E402


def simulated(runs: int, elo1: float, lucks: list[float], rounds: int) -> None:
    h = sprt.Hypotheses(0.0, elo1)
    print(f"H0 0 Elo, H1 {elo1:g} Elo, alpha = beta = 0.05; {runs} runs x {rounds} rounds per figure")
    head = ("luck", "at", "H1 paired", "H1 unpaired", "games paired", "unpaired", "factor")
    print(" ".join(f"{word:>{width}}" for word, width in zip(head, (5, 3, 10, 12, 13, 9, 7), strict=True)))
    for luck in lucks:
        for label, elo in (("H0", h.elo0), ("H1", h.elo1)):
            found: dict[bool, list[sprt.Runs]] = {True: [], False: []}
            for round_ in range(rounds):
                for paired in (True, False) if round_ % 2 == 0 else (False, True):
                    rng = np.random.default_rng([round_, int(luck * 100), int(elo * 100)])
                    found[paired].append(
                        sprt.simulate(h, elo, runs=runs, luck=luck, paired=paired, max_games=400_000, rng=rng)
                    )
            rate = {p: float(np.mean([r.accepted_h1 for r in found[p]])) for p in found}
            games = {p: float(np.mean([r.mean_games for r in found[p]])) for p in found}
            print(
                f"{luck:>5.1f} {label:>3} {rate[True]:>10.3f} {rate[False]:>12.3f} {games[True]:>13.0f} "
                f"{games[False]:>9.0f} {games[False] / games[True]:>7.2f}"
            )


def measured(url: str, test_id: int) -> None:
    store = Store(url)
    with store.session() as session:
        test = session.get_one(AbTest, test_id)
        deals = landed(session, test).scores
        games = landed(session, test, by_game=True).scores
    per_deal = len(games) / len(deals)
    factor = float(np.var(games)) / (per_deal * float(np.var(deals)))
    print(
        f"test {test_id}: {len(games)} games, {len(deals)} deals of {per_deal:g}; one game's score variance "
        f"{np.var(games):.4f}, a deal's mean's {np.var(deals):.4f}: pairing cuts the games needed by "
        f"{factor:.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--luck", type=float, nargs="+", default=[0.0, 0.5, 1.0, 1.5, 2.0])
    parser.add_argument("--db", help="a store's URL, with --test")
    parser.add_argument("--test", type=int, help="an A/B test's id in that store")
    args = parser.parse_args()
    if args.db and args.test:
        measured(args.db, args.test)
    simulated(args.runs, args.elo1, args.luck, args.rounds)


if __name__ == "__main__":
    main()
