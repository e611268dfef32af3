"""Kozel bot strength: ``python bench/kozel_strength.py [--series N] [--decisions M]``.

Prints the search bot's speed at its default budget (decisions/s over ``--decisions`` decisions),
and win rates over duplicate deals for search vs heuristic, heuristic vs random and search vs random
(``--series`` series of 4 games per pairing). The whole run takes a few minutes.

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import loop  # noqa: E402
from arena.bots import load_bot  # noqa: E402
from arena.games.kozel import Kozel, KozelConfig  # noqa: E402
from arena.runner.inprocess import InProcessAgent  # noqa: E402
from arena.runner.match import MatchRunner  # noqa: E402
from arena.runner.terms import Limits  # noqa: E402
from sdk.bot import MatchInfo  # noqa: E402


def decisions_per_second(decisions: int) -> tuple[float, float]:
    """Decisions/s and mean ms of the search bot at its default budget."""
    rng = random.Random(1)
    bot = load_bot("kozel", "builtin:search")
    bot.begin_match(MatchInfo("bench", "kozel", 1, KozelConfig(), 0, ("b",) * 4, (0, 1, 0, 1), 1, 1000, 0, 7))
    spent, done = 0.0, 0
    while done < decisions:
        state = Kozel().new_state(KozelConfig(), 4, rng)
        while (seat := state.to_act()) is not None and done < decisions:
            legal = state.legal_actions()
            if len(legal) > 1:
                started = time.perf_counter()
                bot.decide(state.observation(seat), legal, 10_000)
                spent += time.perf_counter() - started
                done += 1
            state.apply(rng.choice(legal), rng)
    return done / spent, spent / done * 1000.0


def duel(first: str, second: str, series: int, seed: int) -> tuple[float, float, float]:
    """Team of ``first`` (agents 0 and 2) against ``second``: series share won, card point share, seconds."""
    game = Kozel()
    specs = [first, second, first, second]
    agents = [
        InProcessAgent(load_bot("kozel", f"builtin:{name}"), name=f"{name}{index}")
        for index, name in enumerate(specs)
    ]
    runner = MatchRunner(
        game,
        KozelConfig(),
        agents,
        games=4 * series,
        seed=seed,
        limits=Limits(decision_ms=5_000, bank_ms=600_000),
        rotate=True,
        duplicate=True,
    )
    record = loop.run(runner.run())
    won = points = total = 0.0
    for game_record in record.games:
        assert game_record.result is not None
        seat = game_record.seating.index(0)  # the seat agent 0 played: its team is the first bot's
        team = seat % 2
        won += game_record.result.scores[seat]
        for deal in game_record.result.detail["deals"]:
            points += deal["points"][team]
            total += sum(deal["points"])
    return won / len(record.games), points / total if total else 0.5, record.play_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=3, help="series per pairing (x4 seat rotations)")
    parser.add_argument("--decisions", type=int, default=200, help="decisions timed for (a)")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rate, mean_ms = decisions_per_second(args.decisions)
    print(f"(a) search bot, default budget: {rate:.1f} decisions/s ({mean_ms:.1f} ms per decision)")
    print(f"(b) duplicate series, {args.series} per pairing x 4 rotations = {4 * args.series} games each")
    for first, second in (("search", "heuristic"), ("heuristic", "random"), ("search", "random")):
        won, share, seconds = duel(first, second, args.series, args.seed)
        print(
            f"    {first:>9} vs {second:<9}: series won {won:6.1%}"
            f"  card points {share:6.1%}  ({seconds:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
