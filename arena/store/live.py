"""A running match's replay so far, in the store, so that spectators see it from any host.

The worker holding the match adds lines as its games end (``LiveReplay``): the replay's header
(``replay.header``), then one line per finished game (``replay.game_to_json``). It writes them
from a thread of its own, so that a slow or unreachable database never holds up play, and at most
once every ``WRITE_EVERY_S`` (the lines of the games that ended meanwhile together), so that a
match of quick games does not cost a transaction per game: lines the store could not take go with
the next write. A reader takes only the lines of the match's current
worker (``load_live``), so a worker that lost the match (its lease expired while it hung) cannot
add to what spectators see. A worker's lines go when it records the match or gives it back
(``clear``, in that transaction), and all lines of a match when a new attempt at it is claimed
(``arena.store.repo.claim``, in that transaction).
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from arena.runner import replay
from arena.runner.records import GameRecord, MatchRecord
from arena.store.db import Store
from arena.store.models import LiveLine, Match

WRITE_EVERY_S = 0.5
"""A live replay is written at most this often: a spectator sees a game at most this long after
its end, and a match of 50 games of a few ms each commits a handful of transactions, not 50."""


class LiveReplay:
    """The live replay a worker writes while it plays a match; a context manager, whose end stops
    the writing (lines still waiting are dropped: the match is over, or given back)."""

    def __init__(self, store: Store, match_id: int, worker: str) -> None:
        self._store, self._match_id, self._worker = store, match_id, worker
        self._writer = ThreadPoolExecutor(1, thread_name_prefix=f"live-{match_id}")
        self._started = False
        self._sent = 0
        self._unsent: list[str] = []
        """Lines the store could not take yet (touched on the writer's thread only)."""
        self._lock = threading.Lock()
        self._added: list[str] = []
        """Lines added since the writer last took them (under the lock)."""
        self._due = False
        """Whether a write is on its way for them (under the lock)."""
        self._written = -WRITE_EVERY_S
        self._over = threading.Event()

    def __enter__(self) -> LiveReplay:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._over.set()
        self._writer.shutdown(wait=True, cancel_futures=True)

    def add(self, record: MatchRecord, game: GameRecord) -> None:
        """A game has ended (the runner's ``on_game``): queue its line, after the header if first."""
        lines = [] if self._started else [replay.header(record)]
        self._started = True
        lines.append(replay.game_to_json(game))
        with self._lock:
            self._added += [json.dumps(line, separators=(",", ":")) for line in lines]
            if self._due:
                return
            self._due = True
        self._writer.submit(self._write)

    def _write(self) -> None:
        """Once ``WRITE_EVERY_S`` has passed since the last write, write what was added meanwhile."""
        if self._over.wait(self._written + WRITE_EVERY_S - time.monotonic()):
            return  # the match is over: what is left is dropped
        with self._lock:
            lines, self._added, self._due = self._added, [], False
        self._written = time.monotonic()
        self._send(lines)

    def _send(self, lines: list[str]) -> None:
        """Write ``lines``, after those the store could not take before."""
        self._unsent += lines
        match_id, worker, first = self._match_id, self._worker, self._sent
        try:
            with self._store.session() as session:
                session.add_all(
                    LiveLine(match_id=match_id, worker=worker, line=first + number, data=data)
                    for number, data in enumerate(self._unsent)
                )
        except SQLAlchemyError:
            return  # the store is out of reach: these go with the next game's
        self._sent += len(self._unsent)
        self._unsent = []


def clear(session: Session, match_id: int, worker: str) -> None:
    """Remove what ``worker`` wrote of the match's live replay: it is recorded, or given back (only
    its own lines: the match may be another worker's by now)."""
    session.execute(delete(LiveLine).where(LiveLine.match_id == match_id, LiveLine.worker == worker))


def load_live(session: Session, match: Match) -> dict[str, Any] | None:
    """A running match's replay so far (as ``replay.parse`` gives, with the games finished until
    now), or None before its first game ends."""
    lines = session.scalars(
        select(LiveLine.data)
        .where(LiveLine.match_id == match.id, LiveLine.worker == match.worker)
        .order_by(LiveLine.line)
    ).all()
    if not lines:
        return None
    source = f"match {match.id}'s live replay"
    data = replay.parse(lines[0], source)
    try:
        data["games"] = [json.loads(line) for line in lines[1:]]
    except json.JSONDecodeError as error:
        raise replay.ReplayError(f"{source}: cannot read a game: {error}") from error
    return data
