"""Tournament throughput end to end: ``python bench/tournament.py`` (``--quick``, ``--baseline REV``).

For each game, a round robin of its quick built-in bots is played as production plays it (local
pool of 2 workers, bubblewrap sandbox, SQLite) and by the in-process runner on the same matches (the
ceiling). It prints both matches per minute, their ratio, and the share of wall time outside the
bots' decisions (goal: at most 20%). ``--baseline REV`` also plays commit REV's own code, interleaved,
and prints this tree's matches per minute over REV's; ``--celery`` compares Celery with the local
pool (goal: within 5%).

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from interleave import ROOT, Figures, interleaved, median, paired, short, worktree

if TYPE_CHECKING:
    from arena.store.db import Store

GAMES = ("edible", "believe", "kozel")
GOAL_GAMES = ("edible", "believe")
"""The games the goal against the baseline (at least 2x) is set for."""
WORKERS = 2
THIS_TREE = "this tree"


def recorded(store: Store, tournament_id: int) -> Figures:
    """The tournament's matches, their matches per minute from the first one's start to the last
    one's end, and the share of their wall time spent outside the bots' decisions."""
    from sqlalchemy import select

    from arena.store.models import Match

    with store.session() as session:
        matches = session.scalars(select(Match).where(Match.tournament_id == tournament_id)).all()
        spans = [(match.started_at, match.finished_at) for match in matches]
        deciding = sum(match.decide_seconds for match in matches)
    wall = sum((end - start).total_seconds() for start, end in spans if start and end)
    first = min(start for start, _ in spans if start)
    last = max(end for _, end in spans if end)
    return {
        "matches": len(matches),
        "span_s": (last - first).total_seconds(),
        "per_minute": 60 * len(matches) / (last - first).total_seconds(),
        "outside": 1 - deciding / wall,
    }


@contextlib.contextmanager
def celery_workers(url: str) -> Iterator[None]:
    """A private Redis and two Celery workers of the tree under test, on the store at ``url``."""
    sys.path.append(str(ROOT / "tests"))
    from services import private_redis

    os.environ["ARENA_DATABASE_URL"] = url
    with private_redis() as redis:
        os.environ["ARENA_BROKER_URL"] = redis.url
        command = [sys.executable, "-m", "arena.cli", "worker", "--concurrency", "1", "--loglevel", "WARNING"]
        workers = [
            subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(WORKERS)
        ]
        try:
            yield
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=30)


def measure(game: str, games: int, rounds: int, on_celery: bool) -> Figures:
    """One run on the tree whose ``arena`` the path finds first: sandboxed, in process, and on
    Celery if asked (its workers start first, so they are up when their tournament starts)."""
    from quick_tournament import build, play_in_process, play_local

    from arena.store.db import Store

    with tempfile.TemporaryDirectory(prefix="arena-bench-", ignore_cleanup_errors=True) as folder:
        os.environ["ARENA_HOME"] = str(Path(folder) / "home")
        store = Store(f"sqlite:///{Path(folder) / 'arena.db'}")
        store.upgrade()
        with celery_workers(store.url) if on_celery else contextlib.nullcontext():
            tournament_id = build(store, game, games, rounds)
            seconds = play_local(store, tournament_id, WORKERS)
            figures = recorded(store, tournament_id)
            figures["fixed_s"] = seconds - figures["span_s"]
            figures |= play_in_process(store, tournament_id, WORKERS)
            if on_celery:
                from arena.tournament.executors import CeleryWorkers
                from arena.tournament.scheduler import Scheduler

                tournament_id = build(store, game, games, rounds)
                Scheduler(store, CeleryWorkers(queue_ahead=4), only=tournament_id).run()
                played = recorded(store, tournament_id)
                figures |= {"celery_per_minute": played["per_minute"], "celery_outside": played["outside"]}
        store.dispose()
    return figures


def report(game: str, runs: dict[str, list[Figures]], celery: bool) -> None:
    ours = runs[THIS_TREE]
    print(f"\n== {game}: {int(ours[0]['matches'])} matches, medians of {len(ours)} run(s)")
    print(f"{'':<23}{'matches/min':>12}  outside decisions  pool start, stop")
    rows = [("sandboxed", "per_minute", "outside"), ("in process", "ceiling_per_minute", "ceiling_outside")]
    if celery:
        rows.append(("celery", "celery_per_minute", "celery_outside"))
    for name, results in runs.items():
        for label, rate, share in rows:
            line = (
                f"{name:<10} {label:<12}{median(results, rate):>12.1f}  {100 * median(results, share):16.1f}%"
            )
            print(line + (f"  {median(results, 'fixed_s'):14.1f} s" if rate == "per_minute" else ""))
    print(f"sandboxed / in process: {paired(ours, 'per_minute', ours, 'ceiling_per_minute'):.3f}")
    if celery:
        print(
            f"celery / local: {paired(ours, 'celery_per_minute', ours, 'per_minute'):.3f} (goal: within 5%)"
        )
    for name, results in runs.items():
        if name != THIS_TREE:
            ratio = paired(ours, "per_minute", results, "per_minute")
            goal = " (goal: at least 2)" if game in GOAL_GAMES else ""
            print(f"{THIS_TREE} / {name}, sandboxed: {ratio:.2f}{goal}")
        if differ := max(int(run["differ"]) for run in results):
            print(f"warning: {name}: in process, {differ} match(es) ended otherwise than sandboxed")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick", action="store_true", help="20-game matches, fewer rounds, one run per tree"
    )
    parser.add_argument("--baseline", metavar="REV", help="also play commit REV, interleaved (e.g. 1631bd6)")
    parser.add_argument("--repeats", type=int, help="runs per tree and game (default 3, --quick 1)")
    parser.add_argument("--celery", action="store_true", help="also play each tournament on Celery")
    parser.add_argument("--game", choices=GAMES, action="append", help="only this game (may be repeated)")
    parser.add_argument("--measure", choices=GAMES, help=argparse.SUPPRESS)
    parser.add_argument("--games", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure, args.games, args.rounds, args.celery)))
        return
    # Rounds: as many matches as workers, or twice as many, so that none plays alone at the end.
    games, rounds, repeats = (20, WORKERS, 1) if args.quick else (50, 2 * WORKERS, 3)
    repeats = args.repeats or repeats
    print(
        f"Card Arena tournament throughput: {games}-game duplicate-deal matches, {WORKERS} local workers, "
        "bots in bubblewrap; ceiling: the same matches on the in-process runner"
    )
    with contextlib.ExitStack() as stack:
        trees = {THIS_TREE: ROOT}
        if args.baseline:
            trees = {short(args.baseline): stack.enter_context(worktree(args.baseline)), **trees}
            print(f"against {args.baseline} ({short(args.baseline)}), runs interleaved")
        for game in args.game or GAMES:
            arguments = ["--measure", game, "--games", str(games), "--rounds", str(rounds)]
            runs = interleaved(
                trees, Path(__file__).resolve(), arguments + ["--celery"] * args.celery, repeats
            )
            report(game, runs, args.celery)


if __name__ == "__main__":
    main()
