"""Tournament throughput: ``python bench/tournament.py`` (``--quick`` for a short run).

For each game with built-in bots, the same round robin runs on the local process pool and on
Celery (two real worker processes on a private Redis), both on SQLite in a temporary folder.
Prints matches per minute end to end for each executor, their ratio (goal: Celery within 5% of
the local pool), and the share of each match's wall time spent outside the bots' decisions
(process start-up, engine, replays and the store; goal: at most 20% for matches of 50+ games).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from quick_tournament import build  # noqa: E402
from services import private_redis  # noqa: E402
from sqlalchemy import select  # noqa: E402

from arena.bots import BUILTIN  # noqa: E402
from arena.store.db import Store  # noqa: E402
from arena.store.models import Match  # noqa: E402
from arena.tournament.executors import CeleryWorkers, Executor, LocalPool  # noqa: E402
from arena.tournament.scheduler import Scheduler  # noqa: E402


def measure(store: Store, tournament_id: int, executor: str) -> tuple[float, float, int]:
    """(matches per minute, share of match wall time outside decisions, matches)."""
    started = time.perf_counter()
    pool: Executor = LocalPool(store.url, 2) if executor == "local" else CeleryWorkers(queue_ahead=4)
    Scheduler(store, pool, only=tournament_id).run()
    elapsed = time.perf_counter() - started
    with store.session() as session:
        matches = session.scalars(select(Match).where(Match.tournament_id == tournament_id)).all()
        wall = sum(
            (match.finished_at - match.started_at).total_seconds() for match in matches if match.finished_at
        )
        deciding = sum(match.decide_seconds for match in matches)
    return 60 * len(matches) / elapsed, 1 - deciding / wall, len(matches)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    games, rounds = (20, 2) if args.quick else (50, 3)
    folder = Path(tempfile.mkdtemp(prefix="arena-bench-"))
    os.environ["ARENA_HOME"] = str(folder / "home")
    print(f"Card Arena tournament benchmark: {games} games per match, duplicate deals, 2 worker processes")
    # One store for every tournament: the workers know it from their own environment.
    url = f"sqlite:///{folder / 'arena.db'}"
    os.environ["ARENA_DATABASE_URL"] = url
    with private_redis() as redis:
        os.environ["ARENA_BROKER_URL"] = redis.url
        env = {**os.environ}
        workers = [
            subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "worker", "--concurrency", "1", "--loglevel", "WARNING"],
                env=env,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            for _ in range(2)
        ]
        try:
            for game_name in [name for name in ("edible", "kozel", "believe") if name in BUILTIN]:
                results = {}
                for executor in ("local", "celery"):
                    store = Store(url)
                    store.upgrade()
                    tournament_id = build(store, game_name, games, rounds)
                    results[executor] = measure(store, tournament_id, executor)
                    store.dispose()
                print(f"\n== {game_name}: {results['local'][2]} matches")
                for executor, (per_minute, outside, _) in results.items():
                    share = f"{100 * outside:5.1f}%"
                    print(
                        f"{executor:<7} {per_minute:>8.1f} matches/min, outside decisions {share} (goal 20%)"
                    )
                ratio = results["celery"][0] / results["local"][0]
                print(f"celery / local: {ratio:.3f} (goal: within 5%)")
        finally:
            for worker in workers:
                worker.terminate()
            for worker in workers:
                worker.wait(timeout=30)


if __name__ == "__main__":
    main()
