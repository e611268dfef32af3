"""Running a tournament's matches on an executor: a local process pool (the embedded default)
or Celery workers (``workers/``), both calling ``arena.tournament.play.run_match``."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

from arena.store.db import Store
from arena.store.models import Match, MatchStatus
from arena.store.patience import ride_out
from arena.store.repo import expire_leases, give_back, progress
from arena.tournament.play import LEASE, MAX_ATTEMPTS, RENEW_S, run_match, worker_name

LOST_AFTER_S = 5.0
"""How long a queued match may wait before the coordinator asks the broker whether it still holds its task."""
NO_WORKER_S = 5.0
"""How long matches may wait with none running before the coordinator asks whether any worker is there."""


def pending_matches(store: Store, tournament_id: int) -> list[int]:
    from sqlalchemy import select

    with store.session() as session:
        return list(
            session.scalars(
                select(Match.id)
                .where(Match.tournament_id == tournament_id, Match.status == MatchStatus.PENDING)
                .order_by(Match.index)
            )
        )


Progress = Callable[[int, int], None]
"""Called with (matches finished, matches in the tournament)."""


def finished_count(store: Store, tournament_id: int) -> tuple[int, int, int]:
    """(finished, still to run or running, total) for a tournament."""
    with store.session() as session:
        counts = progress(session, tournament_id)
    finished = counts[MatchStatus.DONE] + counts[MatchStatus.FAILED_INFRASTRUCTURE] + counts[MatchStatus.VOID]
    active = counts[MatchStatus.PENDING] + counts[MatchStatus.RUNNING]
    return finished, active, finished + active


def recover(store: Store) -> list[int]:
    """Expire the leases nobody renews (their matches run again, or fail out of attempts)."""
    with store.session() as session:
        return expire_leases(session, MAX_ATTEMPTS)


def run_local(
    tournament_id: int, url: str, workers: int | None = None, on_progress: Progress | None = None
) -> None:
    """The embedded executor: a pool of local processes, each calling ``run_match``. Matches
    given back after an infrastructure fault are run again, up to ``MAX_ATTEMPTS`` passes.

    Matches an earlier run left running (it was killed) are taken back once their leases expire.
    Interrupted (Ctrl-C), it stops at once: its pool processes (which leave SIGINT to it) end,
    their sandboxed bots with them, the matches they held are pending again with the attempt
    uncounted, and ``KeyboardInterrupt`` is raised: a rerun finishes them."""
    store = Store(url)
    worker = f"{worker_name()}/local"
    passes = 0
    try:
        while passes < MAX_ATTEMPTS:
            ride_out(lambda: recover(store))
            pending = ride_out(lambda: pending_matches(store, tournament_id))
            if not pending:
                if not ride_out(lambda: finished_count(store, tournament_id)[1]):
                    break
                time.sleep(RENEW_S)  # held by another run, or by a dead one until its lease expires
                continue
            passes += 1
            pool = ProcessPoolExecutor(
                max_workers=workers or os.cpu_count() or 1,
                mp_context=get_context("spawn"),
                initializer=signal.signal,
                initargs=(signal.SIGINT, signal.SIG_IGN),
            )
            try:
                for future in as_completed(
                    [pool.submit(run_match, match_id, url, worker) for match_id in pending]
                ):
                    future.result()
                    if on_progress is not None:
                        finished, _, total = ride_out(lambda: finished_count(store, tournament_id))
                        on_progress(finished, total)
            except KeyboardInterrupt:
                _stop(pool)
                raise
            pool.shutdown()
    except KeyboardInterrupt:

        def release_held() -> None:
            with store.session() as session:
                give_back(session, worker)

        ride_out(release_held, patience_s=10)
        raise
    finally:
        store.dispose()


def _stop(pool: ProcessPoolExecutor) -> None:
    """End a local run's pool at once: drop the matches not started and end its processes."""
    processes = multiprocessing.active_children()  # the pool's: this process starts no other
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
    for process in processes:
        process.join()


def run_celery(
    tournament_id: int,
    url: str,
    on_progress: Progress | None = None,
    on_problem: Callable[[str], None] | None = None,
    poll: float = 0.5,
) -> None:
    """Queue every pending match for the Celery workers once and watch the store until none is
    pending or running.

    A match is queued again only when its task is known lost: its worker's lease expired (the
    worker died or hung), or the broker no longer holds its task (a broker restarted without
    persistence). The store's atomic claim makes any duplicate delivery harmless. When the broker
    cannot be reached, or no worker answers, ``on_problem`` hears it within seconds, and again
    every few seconds while it lasts."""
    from workers.app import Broker

    store = Store(url)
    broker = Broker()
    queued: dict[int, float] = {}
    """When each match's task was last sent."""
    idle_since = time.monotonic()
    """Since when no match has run (or since the last time the coordinator asked for workers)."""
    leases_count_from = 0.0
    try:

        def waiting(problem: str) -> None:
            """The database is out of reach: no lease counts as expired until the workers have
            had a whole lease to renew theirs after it is back."""
            nonlocal leases_count_from
            leases_count_from = time.monotonic() + LEASE.total_seconds()
            if on_problem is not None:
                on_problem(problem)

        def survey() -> tuple[set[int], tuple[int, int, int], list[int]]:
            """Matches whose leases expired (their tasks lost), progress, and the pending ones."""
            lost = set(recover(store)) if time.monotonic() > leases_count_from else set()
            return lost, finished_count(store, tournament_id), pending_matches(store, tournament_id)

        while True:
            lost, (finished, active, total), pending = ride_out(survey, waiting)
            if on_progress is not None:
                on_progress(finished, total)
            if active == 0:
                return
            now = time.monotonic()
            stale = [match_id for match_id in pending if now - queued.get(match_id, now) > LOST_AFTER_S]
            if stale:
                held = broker.held_matches()
                lost |= {match_id for match_id in stale if held is not None and match_id not in held}
            problem = None
            for match_id in pending:
                if match_id in queued and match_id not in lost:
                    continue
                if not broker.send(match_id):
                    problem = f"cannot reach the broker at {broker.where}: retrying"
                    break
                queued[match_id] = now
            if problem is not None or len(pending) < active:
                idle_since = now
            elif now - idle_since > NO_WORKER_S:
                # Nothing has run for a while: is anyone there to run it? (Asked every NO_WORKER_S.)
                idle_since = now
                if not broker.workers_answer():
                    problem = f"no worker answers on the broker at {broker.where}: start one (`arena worker`)"
            if problem is not None and on_problem is not None:
                on_problem(problem)
            time.sleep(poll if problem is None else max(poll, 2.0))
    finally:
        broker.close()
        store.dispose()
