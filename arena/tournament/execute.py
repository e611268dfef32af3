"""Running a tournament's matches: one ``run_match`` for every executor.

``run_match(match_id)`` claims the match in the store (atomically: a finished or running match
is never run twice at once), plays it with one sandboxed process per entrant, writes the replay
and logs, and records the results in one transaction keyed by the match id (so a match is
recorded exactly once however often it is run). An infrastructure fault (the sandbox cannot
start) gives the match back for another attempt, up to ``MAX_ATTEMPTS``, and never counts
against a bot. Executors: a local process pool (the embedded default) and Celery workers
(``workers/``), both calling this function.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from datetime import timedelta
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from arena.games.registry import get_game
from arena.runner import replay
from arena.runner.match import Limits
from arena.sandbox import BotProgram, NoSandbox, Sandbox, SandboxError, make_sandbox
from arena.store.db import Store
from arena.store.models import BotVersion, Match, MatchStatus, Tournament
from arena.store.repo import RecordedPaths, claim, progress, reap, record_result, release
from arena.submissions import Artifact

MAX_ATTEMPTS = 3


def data_home() -> Path:
    """Where artifacts, replays and logs live: ``$ARENA_HOME`` (default ./arena-data); workers
    on other hosts must see the same folder (a shared volume)."""
    return Path(os.environ.get("ARENA_HOME", "arena-data")).resolve()


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


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


def run_match(match_id: int, url: str | None = None, worker: str | None = None) -> str:
    """Run match ``match_id`` if it is pending; returns its status afterwards."""
    from arena.transport.process import play_match

    store = Store(url)
    worker = worker or worker_name()
    try:
        with store.session() as session:
            match = claim(session, match_id, worker, MAX_ATTEMPTS)
            if match is None:
                current = session.get(Match, match_id)
                return current.status if current else "missing"
            tournament = session.get(Tournament, match.tournament_id)
            assert tournament is not None
            versions = [session.get(BotVersion, version_id) for version_id in match.entrants]
            game = get_game(f"{tournament.game}@{tournament.game_version}")
            config = game.config_type.from_dict(tournament.config)
            programs = [program_for(version, game.name) for version in versions if version is not None]
            names = [f"{version.bot.name}" for version in versions if version is not None]
            options: dict[str, Any] = {
                "games": tournament.games_per_match,
                "seed": match.seed,
                "duplicate": tournament.duplicate,
                "match_id": str(match.id),
                "limits": Limits(),
            }
            tournament_id = tournament.id
        replay_path, live_path = replay_paths(data_home(), tournament_id, match_id)
        folder = replay_path.parent
        folder.mkdir(parents=True, exist_ok=True)
        live = replay.LiveReplay(live_path)
        try:
            sandbox = tournament_sandbox(programs)
            record = asyncio.run(
                play_match(game, config, programs, sandbox, names, on_game=live.add, **options)
            )
        except SandboxError as error:
            live.discard()
            with store.session() as session:
                return release(session, match_id, worker, f"infrastructure: {error}", MAX_ATTEMPTS)
        replay_path.write_text(json.dumps(replay.to_json(record), separators=(",", ":")))
        logs = []
        for agent, text in enumerate(record.logs):
            path = folder / f"match-{match_id}-agent{agent}.log"
            path.write_text(text)
            logs.append(str(path))
        live.discard()
        with store.session() as session:
            record_result(session, match_id, worker, record, RecordedPaths(str(replay_path), logs))
            current = session.get(Match, match_id)
            return current.status if current else "missing"
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


def run_local(
    tournament_id: int, url: str, workers: int | None = None, on_progress: Progress | None = None
) -> None:
    """The embedded executor: a pool of local processes, each calling ``run_match``. Matches
    given back after an infrastructure fault are run again, up to ``MAX_ATTEMPTS`` passes."""
    store = Store(url)
    try:
        for _ in range(MAX_ATTEMPTS):
            pending = pending_matches(store, tournament_id)
            if not pending:
                break
            context = get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1, mp_context=context) as pool:
                for future in as_completed([pool.submit(run_match, match_id, url) for match_id in pending]):
                    future.result()
                    if on_progress is not None:
                        finished, _, total = finished_count(store, tournament_id)
                        on_progress(finished, total)
    finally:
        store.dispose()


def run_celery(
    tournament_id: int,
    url: str,
    on_progress: Progress | None = None,
    deadline: timedelta = timedelta(minutes=10),
    requeue_after: float = 30.0,
    poll: float = 0.5,
) -> None:
    """Queue every pending match for the Celery workers and watch the store until none is
    pending or running.

    Queued tasks can be lost (a broker restarted without persistence) or stranded (a worker
    killed mid-match): a match still pending ``requeue_after`` seconds after it was queued is
    queued again, and the reaper sends matches running past ``deadline`` back to pending. The
    store's atomic claim makes any duplicate delivery harmless."""
    from workers.app import app, broker_url, run_match_task

    store = Store(url)
    queued: dict[int, float] = {}
    connection = None
    try:
        while True:
            with store.session() as session:
                reap(session, deadline)
            finished, active, total = finished_count(store, tournament_id)
            if on_progress is not None:
                on_progress(finished, total)
            if active == 0:
                return
            now = time.monotonic()
            for match_id in pending_matches(store, tournament_id):
                if now - queued.get(match_id, -requeue_after) < requeue_after:
                    continue
                try:
                    connection = connection or app.connection_for_write(broker_url())
                    run_match_task.apply_async((match_id, url), connection=connection, retry=False)
                except Exception:  # the broker is down: reconnect on the next pass
                    if connection is not None:
                        connection.release()
                    connection = None
                    break
                queued[match_id] = now
            time.sleep(poll)
    finally:
        if connection is not None:
            connection.release()
        store.dispose()
