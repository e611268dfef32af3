"""What containment costs honest bots: ``python bench/containment.py --baseline REV`` (``--quick``).

Plays the same tournament (a round robin of the quick built-in bots, duplicate deals, the local
process pool with 2 workers, bots in the bubblewrap sandbox) on this tree and on commit ``REV``
(checked out in a temporary git worktree), interleaved, several times per game. Prints matches
per minute and the bots' mean time per decision for both, and their ratio (goal: containment
costs honest bots nothing, a ratio of 1.0 within this noisy machine's spread).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from interleave import ROOT, Figures, interleaved, median, worktree

GAMES = ("edible", "kozel", "believe")


def measure(game_name: str, games: int, rounds: int) -> Figures:
    """Run one tournament with the ``arena`` package found first on the path (the tree under test)."""
    from quick_tournament import build, play_local
    from sqlalchemy import select

    from arena.store.db import Store
    from arena.store.models import Match

    folder = Path(tempfile.mkdtemp(prefix="arena-containment-"))
    os.environ["ARENA_HOME"] = str(folder / "home")
    store = Store(f"sqlite:///{folder / 'arena.db'}")
    store.upgrade()
    tournament_id = build(store, game_name, games, rounds)
    elapsed = play_local(store, tournament_id, workers=2)
    with store.session() as session:
        matches = session.scalars(select(Match).where(Match.tournament_id == tournament_id)).all()
        times = [
            action[2]
            for match in matches
            for record in replay_of(session, match)["games"]
            for action in record["actions"]
        ]
    store.dispose()
    return {"per_minute": 60 * len(matches) / elapsed, "ms_per_decision": statistics.fmean(times)}


def replay_of(session: Any, match: Any) -> dict[str, Any]:
    """A recorded match's replay, read as the tree under test keeps it: a blob in the store, or a
    file in the data folder in a baseline from before blobs."""
    if not hasattr(match, "replay_blob"):
        return dict(json.loads(Path(match.replay_path).read_text()))
    from arena.store import blobs

    return dict(json.loads(blobs.get(session, match.replay_blob)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD", help="the commit to compare with (default HEAD)")
    parser.add_argument("--quick", action="store_true", help="fewer games and repeats")
    parser.add_argument("--measure", choices=GAMES, help=argparse.SUPPRESS)
    parser.add_argument("--games", type=int, default=20, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.games, args.rounds)))
        return
    games, rounds, repeats = (20, 1, 2) if args.quick else (50, 2, 3)
    with worktree(args.baseline) as baseline:
        print(
            f"Containment cost: this tree against {args.baseline}, {games} games per match, duplicate deals, "
            f"2 local workers, bubblewrap; {repeats} interleaved runs each"
        )
        for game in GAMES:
            arguments = ["--measure", game, "--games", str(games), "--rounds", str(rounds)]
            runs = interleaved(
                {"baseline": baseline, "this tree": ROOT}, Path(__file__).resolve(), arguments, repeats
            )
            medians = {
                name: {key: median(results, key) for key in results[0]} for name, results in runs.items()
            }
            print(f"\n== {game}")
            for name, figures in medians.items():
                per_minute, decide_ms = figures["per_minute"], figures["ms_per_decision"]
                print(f"{name:<10} {per_minute:8.1f} matches/min  {decide_ms:7.3f} ms/decision")
            ratio = medians["this tree"]["per_minute"] / medians["baseline"]["per_minute"]
            decide = medians["this tree"]["ms_per_decision"] / medians["baseline"]["ms_per_decision"]
            print(f"this tree / baseline: matches/min {ratio:.3f}, ms/decision {decide:.3f}")


if __name__ == "__main__":
    main()
