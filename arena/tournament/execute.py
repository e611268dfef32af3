"""Running a tournament's matches: one ``run_match`` for every executor.

``run_match(match_id)`` claims the match in the store (atomically: a finished or running match
is never run twice at once), plays it with one sandboxed process per entrant, writes the replay
and logs, and records the results in one transaction keyed by the match id (so a match is
recorded exactly once however often it is run). An infrastructure fault (the sandbox cannot
start) gives the match back for another attempt, up to ``MAX_ATTEMPTS``, and never counts
against a bot. Executors: a local process pool (the embedded default) and Celery workers
(``workers/``), both calling this function.

A worker holds a running match on a lease (``LEASE``) that it renews every ``RENEW_S`` while
it plays, for as long as the match's own bound allows (``match_bound_s``: its games, decisions
and clocks). A worker that dies, hangs, or plays past that bound stops renewing: the lease
expires and the match runs again elsewhere (``expire_leases``), or, out of attempts, fails with
its reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import signal
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from datetime import timedelta
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from arena.games.base import Game, GameConfig
from arena.games.registry import get_game
from arena.runner import replay
from arena.runner.match import Limits, match_bound_s
from arena.sandbox import BotProgram, NoSandbox, Sandbox, SandboxError, make_sandbox
from arena.store.db import Store
from arena.store.models import BotVersion, Match, MatchStatus, Tournament
from arena.store.patience import ride_out
from arena.store.repo import (
    RecordedPaths,
    claim,
    expire_leases,
    give_back,
    progress,
    record_result,
    release,
    renew,
)
from arena.submissions import Artifact

MAX_ATTEMPTS = 3
LEASE = timedelta(seconds=15)
"""How long a worker holds a match without renewing: a dead worker's match runs again after it."""
RENEW_S = 3.0
"""How often a worker renews its lease while it plays."""
RECORD_S = 60.0
"""Beyond the match's own bound: time to start its sandbox, write its replay and record it."""
LOST_AFTER_S = 5.0
"""How long a queued match may wait before the coordinator asks the broker whether it still holds its task."""
NO_WORKER_S = 5.0
"""How long matches may wait with none running before the coordinator asks whether any worker is there."""


def data_home() -> Path:
    """Where artifacts, replays and logs live: ``$ARENA_HOME`` (default ./arena-data); workers
    on other hosts must see the same folder (a shared volume)."""
    return Path(os.environ.get("ARENA_HOME", "arena-data")).resolve()


def worker_name() -> str:
    """Who plays a match: ``arena worker --hostname`` (else the machine's name) and the process."""
    return f"{os.environ.get('ARENA_WORKER_NAME') or socket.gethostname()}:{os.getpid()}"


def replay_paths(home: Path, tournament_id: int, match_id: int) -> tuple[Path, Path]:
    """A match's replay, and its live replay while it runs (``replay.LiveReplay``)."""
    folder = home / "replays" / f"tournament-{tournament_id}"
    return folder / f"match-{match_id}.json", folder / f"match-{match_id}.live.jsonl"


def program_for(version: BotVersion, game: str) -> BotProgram:
    if version.spec.startswith("builtin:"):
        return BotProgram(game=game, builtin=version.spec.removeprefix("builtin:"))
    return Artifact.stored(data_home(), version.spec, version.entry).program(game)


def tournament_sandbox(programs: list[BotProgram]) -> Sandbox:
    """bubblewrap, always, for submitted code; built-in bots only may run unsandboxed where
    bubblewrap is unavailable (or where ``ARENA_SANDBOX=none`` asks for it)."""
    builtins_only = all(program.builtin is not None for program in programs)
    if os.environ.get("ARENA_SANDBOX") == "none" and builtins_only:
        return NoSandbox()
    try:
        return make_sandbox("bubblewrap")
    except SandboxError:
        if builtins_only:
            return NoSandbox()
        raise


@contextlib.contextmanager
def leased(store: Store, match_id: int, worker: str, bound_s: float) -> Iterator[None]:
    """Renew ``worker``'s lease on its match every ``RENEW_S`` while the block runs, for at most
    ``bound_s``: a match past its own bound is let go (it has hung), and runs again elsewhere."""
    stop = threading.Event()

    def renewing() -> None:
        ends = time.monotonic() + bound_s
        while not stop.wait(RENEW_S) and time.monotonic() < ends:
            try:
                with store.session() as session:
                    if not renew(session, match_id, worker, LEASE):
                        return  # no longer ours: its result will be refused, whatever it is
            except Exception:  # the store is out of reach for now: try again at the next beat
                continue

    thread = threading.Thread(target=renewing, name=f"lease-{match_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


@dataclass(frozen=True)
class Claimed:
    """A match this worker has claimed, with all it needs to play it."""

    tournament_id: int
    game: Game[Any, Any, Any]
    config: GameConfig
    programs: list[BotProgram]
    names: list[str]
    options: dict[str, Any]
    bound_s: float


def _claim(store: Store, match_id: int, worker: str) -> Claimed | str:
    """Claim the match and read its setup; its current status if it cannot be claimed."""
    with store.session() as session:
        match = claim(session, match_id, worker, MAX_ATTEMPTS, LEASE)
        if match is None:
            current = session.get(Match, match_id)
            return current.status if current else "missing"
        tournament = session.get(Tournament, match.tournament_id)
        assert tournament is not None
        versions = [session.get(BotVersion, version_id) for version_id in match.entrants]
        game = get_game(f"{tournament.game}@{tournament.game_version}")
        config = game.config_type.from_dict(tournament.config)
        programs = [program_for(version, game.name) for version in versions if version is not None]
        games, limits = tournament.games_per_match, Limits()
        return Claimed(
            tournament_id=tournament.id,
            game=game,
            config=config,
            programs=programs,
            names=[f"{version.bot.name}" for version in versions if version is not None],
            options={
                "games": games,
                "seed": match.seed,
                "duplicate": tournament.duplicate,
                "match_id": str(match.id),
                "limits": limits,
            },
            bound_s=match_bound_s(config, len(programs), games, tournament.duplicate, limits),
        )


def run_match(match_id: int, url: str | None = None, worker: str | None = None) -> str:
    """Run match ``match_id`` if it is pending; returns its status afterwards.

    Every step that needs the store rides out an outage of up to ``PATIENCE_S``: a finished
    match's result waits in memory until the database takes it."""
    from arena.transport.process import play_match

    store = Store(url)
    worker = worker or worker_name()
    try:
        claimed = ride_out(lambda: _claim(store, match_id, worker))
        if isinstance(claimed, str):
            return claimed
        replay_path, live_path = replay_paths(data_home(), claimed.tournament_id, match_id)
        folder = replay_path.parent
        folder.mkdir(parents=True, exist_ok=True)
        live = replay.LiveReplay(live_path)
        with leased(store, match_id, worker, claimed.bound_s + RECORD_S):
            try:
                sandbox = tournament_sandbox(claimed.programs)
                record = asyncio.run(
                    play_match(
                        claimed.game,
                        claimed.config,
                        claimed.programs,
                        sandbox,
                        claimed.names,
                        on_game=live.add,
                        **claimed.options,
                    )
                )
            except SandboxError as error:
                live.discard()
                reason = f"infrastructure: {error}"

                def give_up() -> str:
                    with store.session() as session:
                        return release(session, match_id, worker, reason, MAX_ATTEMPTS)

                return ride_out(give_up)
            replay_path.write_text(json.dumps(replay.to_json(record), separators=(",", ":")))
            logs = []
            for agent, text in enumerate(record.logs):
                path = folder / f"match-{match_id}-agent{agent}.log"
                path.write_text(text)
                logs.append(str(path))
            live.discard()
            paths = RecordedPaths(str(replay_path), logs)

            def land() -> str:
                with store.session() as session:
                    record_result(session, match_id, worker, record, paths)
                    current = session.get(Match, match_id)
                    return current.status if current else "missing"

            return ride_out(land)
    finally:
        store.dispose()


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
