"""Playing one match: what every executor calls.

``run_match(match_id)`` claims the match in the store atomically, plays it with one sandboxed process
per entrant, and records its replay, logs and results in one transaction keyed by the match id, so a
match is recorded exactly once. An infrastructure fault gives the match back for another attempt, up
to ``MAX_ATTEMPTS``, and never counts against a bot. A worker holds a running match on a lease
(``LEASE``, renewed every ``RENEW_S``; ``expire_leases`` frees those of dead workers), writes each
game to a spool as it ends, and stops a match past its caps (``arena.tournament.limits``). A worker
needs the database and its own data folder, nothing shared with other hosts.

Leases, bounds and why: docs/matches.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import os
import socket
import threading
import time
import zlib
from collections.abc import Coroutine, Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.orm import Session

from arena import loop
from arena.games.base import Game, GameConfig
from arena.games.registry import get_game
from arena.ratings.ladder import land_result
from arena.runner import replay
from arena.runner.match import match_bound_s
from arena.runner.terms import Limits
from arena.sandbox import BotProgram, NoSandbox, Sandbox, SandboxError, cpus
from arena.sandbox.backends import make_sandbox
from arena.store import blobs
from arena.store.artifacts import local_artifact
from arena.store.blobs import BlobError, Packed, pack
from arena.store.db import Store, data_home
from arena.store.live import LiveReplay, clear
from arena.store.models import BotVersion, Match, MatchStatus, Tournament
from arena.store.patience import ride_out
from arena.store.repo import MatchBlobs, claim, release, renew
from arena.tournament.limits import MAX_MATCH_REPLAY_BYTES, OverWallCap, match_wall_s
from arena.transport.process import play_match

T = TypeVar("T")

MAX_ATTEMPTS = 3
LEASE = timedelta(seconds=15)
"""How long a worker holds a match without renewing: a dead worker's match runs again after it."""
RENEW_S = 1.0
"""How often a worker renews its lease while it plays: also how soon it finds its match cancelled."""
LOST_POLL_S = 0.2
"""How often a match in play looks whether its renewal found it lost."""
RECORD_S = 60.0
"""Beyond the match's own bound: time to start its sandbox, write its replay and record it."""
SEATS_AHEAD = 4
"""Sandboxes an executor's process prepares before its first match (a kozel table; the pool then
follows the seats its matches use)."""
READY_S = 10.0
"""The longest an executor's process waits for those at its start."""


def worker_name() -> str:
    """Who plays a match: ``arena worker --hostname`` (else the machine's name) and the process."""
    return f"{os.environ.get('ARENA_WORKER_NAME') or socket.gethostname()}:{os.getpid()}"


def program_for(session: Session, version: BotVersion, game: str) -> BotProgram:
    """A built-in, or submitted code in this worker's data folder (fetched from the store if missing)."""
    if version.spec.startswith("builtin:"):
        return BotProgram(game=game, builtin=version.spec.removeprefix("builtin:"))
    artifact = local_artifact(session, version, data_home())
    return BotProgram(game=game, code_dir=artifact.folder, entry=artifact.entry)


def get_ready(wait_s: float = READY_S) -> None:
    """In an executor's process, once, before its first match: import what playing needs and have
    the sandboxes of a match prepared, waiting up to ``wait_s`` for them, so that the first match
    starts as warm as the ones after it. Each process plays one match at a time: so the machine
    keeps one match's sandboxes ready per process of the executor. Nothing is prepared where
    bubblewrap cannot run (the first match says why). The process keeps to a CPU of its own, if
    one is free, and so do its matches' bots (``arena.sandbox.cpus``).

    What is alive once the imports are done (modules, grpc, protobuf, SQLAlchemy: some 90,000
    objects) lives as long as the process: it is frozen out of the collector's reach. Otherwise the
    matches' records and replays, kept long enough to grow old, brought on a full collection every
    few matches that walked all of it again: 8 believe matches in a row, 3 full collections, 203-208
    ms in all; frozen, 40-43 ms. (The imports are this module's: grpc, protobuf and the runner.)"""
    gc.collect()  # what the imports left in cycles goes now: the frozen are never collected
    gc.freeze()
    cpus.claim()
    if os.environ.get("ARENA_SANDBOX") == "none":
        return
    with contextlib.suppress(SandboxError):
        make_sandbox("bubblewrap").prepare_ahead(SEATS_AHEAD, wait_s)


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


class MatchLost(Exception):
    """The match was cancelled while this worker played it: its play was stopped."""


@contextlib.contextmanager
def leased(store: Store, match_id: int, worker: str, bound_s: float) -> Iterator[threading.Event]:
    """Renew ``worker``'s lease on its match every ``RENEW_S`` while the block runs, for at most
    ``bound_s``: a match past its own bound is let go (it has hung), and runs again elsewhere. The
    event it gives is set once a renewal finds the match void (``unless_lost``); a match that is
    merely no longer the worker's is renewed no more, and played on."""
    stop, lost = threading.Event(), threading.Event()

    def renewing() -> None:
        ends = time.monotonic() + bound_s
        while not stop.wait(RENEW_S) and time.monotonic() < ends:
            try:
                with store.session() as session:
                    if not renew(session, match_id, worker, LEASE):
                        current = session.get(Match, match_id)
                        if current is None or current.status == MatchStatus.VOID:
                            lost.set()  # cancelled: its result would be refused, whatever it is
                        return
            except Exception:  # the store is out of reach for now: try again at the next beat
                continue

    thread = threading.Thread(target=renewing, name=f"lease-{match_id}", daemon=True)
    thread.start()
    try:
        yield lost
    finally:
        stop.set()
        thread.join()


async def unless_lost(play: Coroutine[Any, Any, T], lost: threading.Event) -> T:
    """``play``'s result; cancelled (its bots closed by the runner) and ``MatchLost`` raised as soon as
    ``lost`` is set."""
    task = asyncio.ensure_future(play)
    while not task.done():
        if lost.is_set():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            raise MatchLost
        await asyncio.wait({task}, timeout=LOST_POLL_S)
    return task.result()


@dataclass(frozen=True)
class Claimed:
    """A match this worker has claimed, with all it needs to play it."""

    game: Game[Any, Any, Any]
    config: GameConfig
    entrants: list[int]
    """Bot version ids in starting seat order."""
    names: list[str]
    options: dict[str, Any]
    bound_s: float
    wall_s: float | None
    """Its wall-time cap, if it has one (a user's match: ``limits.match_wall_s``)."""


def _claim(store: Store, match_id: int, worker: str, wall_s: float) -> Claimed | str:
    """Claim the match and read its setup; its current status if it cannot be claimed. A user's
    match (its tournament has a creator) is capped at ``wall_s``."""
    with store.session() as session:
        match = claim(session, match_id, worker, MAX_ATTEMPTS, LEASE)
        if match is None:
            current = session.get(Match, match_id)
            return current.status if current else "missing"
        tournament = session.get(Tournament, match.tournament_id)
        assert tournament is not None
        versions = [session.get_one(BotVersion, version_id) for version_id in match.entrants]
        game = get_game(f"{tournament.game}@{tournament.game_version}")
        config = game.config_type.from_dict(tournament.config)
        games, limits = tournament.games_per_match, Limits()
        return Claimed(
            game=game,
            config=config,
            entrants=list(match.entrants),
            names=[version.bot.name for version in versions],
            options={
                "games": games,
                "seed": match.seed,
                "duplicate": tournament.duplicate,
                "match_id": str(match.id),
                "limits": limits,
            },
            bound_s=match_bound_s(config, len(versions), games, tournament.duplicate, limits),
            wall_s=wall_s if tournament.created_by is not None else None,
        )


def _programs(store: Store, claimed: Claimed) -> list[BotProgram]:
    """The entrants' programs, after the claim's transaction: fetching code may take a moment."""
    with store.session() as session:
        versions = [session.get_one(BotVersion, version_id) for version_id in claimed.entrants]
        return [program_for(session, version, claimed.game.name) for version in versions]


async def capped(play: Coroutine[Any, Any, T], wall_s: float | None) -> T:
    """``play``'s result; cancelled (its bots closed by the runner) and ``OverWallCap`` raised once it
    has run ``wall_s`` seconds (never, for ``None``)."""
    if wall_s is None:
        return await play
    timeout = asyncio.timeout(wall_s)
    try:
        async with timeout:
            return await play
    except TimeoutError:
        if not timeout.expired():
            raise  # the match's own bound, not its cap
    raise OverWallCap(
        f"stopped: over the wall-time cap of {wall_s:g} s a user's match may play "
        "(arena.tournament.limits.MAX_MATCH_WALL_S); counted against no bot"
    )


def pack_chunks(chunks: Iterable[bytes]) -> Packed:
    """A blob ready to put (as ``blobs.pack`` makes one) from its bytes piece by piece: only the
    compressed bytes are held."""
    digest, deflate, size, parts = hashlib.sha256(), zlib.compressobj(), 0, []
    for chunk in chunks:
        size += len(chunk)
        if size > blobs.MAX_BYTES:
            raise BlobError(f"over {size} bytes: over the {blobs.MAX_BYTES}-byte limit of a blob")
        digest.update(chunk)
        parts.append(deflate.compress(chunk))
    parts.append(deflate.flush())
    return Packed(digest.hexdigest(), size, b"".join(parts))


def spool_folder() -> Path:
    """Where a worker's replay spools go: its data folder (on disk, where a temporary folder may be
    in memory); each spool's file is unlinked at once, so nothing is left there."""
    folder = data_home() / "spool"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def run_match(match_id: int, url: str | None = None, worker: str | None = None) -> str:
    """Run match ``match_id`` if it is pending; returns its status afterwards.

    Every step that needs the store rides out an outage of up to ``PATIENCE_S``: a finished
    match's result waits in memory until the database takes it."""

    wall_s = match_wall_s()  # a worker with a bad ARENA_MATCH_WALL_S says so before it claims anything
    store = Store(url)
    worker = worker or worker_name()
    try:
        claimed = ride_out(lambda: _claim(store, match_id, worker, wall_s))
        if isinstance(claimed, str):
            return claimed
        bound_s = min(claimed.bound_s, claimed.wall_s or claimed.bound_s)
        with (
            leased(store, match_id, worker, bound_s + RECORD_S) as lost,
            replay.ReplaySpool(MAX_MATCH_REPLAY_BYTES, spool_folder()) as spool,
        ):
            try:
                with LiveReplay(store, match_id, worker) as live:
                    programs = ride_out(lambda: _programs(store, claimed))
                    sandbox = tournament_sandbox(programs)
                    playing = play_match(
                        claimed.game,
                        claimed.config,
                        programs,
                        sandbox,
                        claimed.names,
                        on_game=live.add,
                        sink=spool,
                        **claimed.options,
                    )
                    record = loop.run(unless_lost(capped(playing, claimed.wall_s), lost))
            except MatchLost:  # cancelled while it played: nothing of it lands

                def let_go() -> str:
                    with store.session() as session:
                        clear(session, match_id, worker)
                        current = session.get(Match, match_id)
                        return current.status if current else "missing"

                return ride_out(let_go)
            except (SandboxError, BlobError) as error:  # no sandbox, or a bot's code cannot be had
                reason = f"infrastructure: {error}"

                def give_up() -> str:
                    with store.session() as session:
                        clear(session, match_id, worker)
                        return release(session, match_id, worker, reason, MAX_ATTEMPTS)

                return ride_out(give_up)
            except (OverWallCap, replay.ReplayTooLarge) as error:  # stopped at a cap: not played again
                reason = (
                    str(error)
                    if isinstance(error, OverWallCap)
                    else f"stopped: {error}; counted against no bot"
                )

                def fail() -> str:
                    with store.session() as session:
                        clear(session, match_id, worker)
                        return release(session, match_id, worker, reason, max_attempts=0)

                return ride_out(fail)
            files = MatchBlobs(
                replay=pack_chunks(spool.chunks(record)),
                logs=[pack(text.encode()) for text in record.logs],
            )

            def land() -> str:
                with store.session() as session:
                    land_result(session, match_id, worker, record, files)
                    clear(session, match_id, worker)
                    current = session.get(Match, match_id)
                    return current.status if current else "missing"

            return ride_out(land)
    finally:
        store.dispose()
