"""Live replays in the store, on SQLite and PostgreSQL: the games a running match has finished, as its
worker wrote them, without ever holding up play."""

from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import event, text, update
from sqlalchemy.orm import Session
from test_store import tournament_with_one_match

from arena.bots import load_bot
from arena.games.edible import Edible, EdibleConfig
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner, ProgressCallback
from arena.runner.records import GameRecord, MatchRecord
from arena.store.db import Store
from arena.store.live import WRITE_EVERY_S, LiveReplay, clear, load_live
from arena.store.models import LiveLine, Match
from arena.store.repo import claim


def running_match(store: Store, worker: str = "w1", left_by: tuple[str, ...] = ()) -> int:
    """A match claimed by ``worker``, after attempts by ``left_by`` left lines of a live replay."""
    match_id = tournament_with_one_match(store)
    with store.session() as session:
        session.add_all(LiveLine(match_id=match_id, worker=name, line=0, data="{}") for name in left_by)
    with store.session() as session:
        assert claim(session, match_id, worker, 3, timedelta(hours=1)) is not None
    return match_id


def live_now(store: Store, match_id: int) -> dict[str, Any] | None:
    with store.session() as session:
        return load_live(session, session.get_one(Match, match_id))


def games_seen(store: Store, match_id: int, games: int, timeout: float = 20) -> dict[str, Any]:
    """The live replay once it shows ``games`` games (its lines are written on a thread of their own)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        data = live_now(store, match_id)
        if data is not None and len(data["games"]) >= games:
            return data
        time.sleep(0.02)
    pytest.fail(f"the live replay did not show {games} game(s) within {timeout:.0f} s")


def play(on_game: ProgressCallback, games: int = 3) -> MatchRecord:
    agents = [InProcessAgent(load_bot("edible", "builtin:random")) for _ in range(3)]
    return asyncio.run(MatchRunner(Edible(), EdibleConfig(), agents, games=games, seed=5).run(on_game))


def test_a_live_replay_holds_the_games_finished_so_far(store: Store) -> None:
    match_id = running_match(store, left_by=("w1", "w0"))  # earlier attempts, this worker's and another's
    assert live_now(store, match_id) is None
    seen: list[dict[str, Any]] = []
    with LiveReplay(store, match_id, "w1") as live:

        def on_game(record: MatchRecord, game: GameRecord) -> None:
            live.add(record, game)
            seen.append(games_seen(store, match_id, len(seen) + 1))

        record = play(on_game)
    whole = json.loads(json.dumps(replay.to_json(record)))
    assert [len(data["games"]) for data in seen] == [1, 2, 3]  # nothing of the earlier attempts shows
    assert seen[-1]["games"] == whole["games"] and replay.verify(seen[-1]) == []
    assert {key: value for key, value in seen[0].items() if key not in ("games", "duration_s")} == {
        key: value for key, value in whole.items() if key not in ("games", "duration_s")
    }
    with store.session() as session:  # a worker that lost the match writes on: nobody reads it
        session.add(LiveLine(match_id=match_id, worker="w0", line=4, data='{"index": 9}'))
    assert live_now(store, match_id) == seen[-1]
    with store.session() as session:
        clear(session, match_id, "w1")
    assert live_now(store, match_id) is None
    with store.session() as session:
        session.add(LiveLine(match_id=match_id, worker="w1", line=0, data='{"schema": "something else"}'))
    with pytest.raises(replay.ReplayError, match=r"match \d+'s live replay: not a card-arena\.replay file"):
        live_now(store, match_id)


def test_a_store_that_keeps_the_writer_waiting_holds_up_no_game(store: Store) -> None:
    """Another transaction holds the lock the live lines need while the match plays: every game
    ends at once all the same, and the lines land when the lock goes."""
    match_id = running_match(store)
    blocker = Session(store.engine)
    if store.engine.dialect.name == "postgresql":
        blocker.execute(text("LOCK TABLE live_replays IN EXCLUSIVE MODE"))
    else:  # a write holds SQLite's one write lock
        blocker.execute(update(Match).where(Match.id == match_id).values(error="held"))
    ended: list[float] = []
    with LiveReplay(store, match_id, "w1") as live:

        def on_game(record: MatchRecord, game: GameRecord) -> None:
            live.add(record, game)
            ended.append(time.monotonic())

        started = time.monotonic()
        play(on_game, games=20)
        assert ended[-1] - started < 5  # in-process games take milliseconds
        assert live_now(store, match_id) is None  # not written yet: the lock is held
        blocker.rollback()
        blocker.close()
        assert len(games_seen(store, match_id, 20)["games"]) == 20


def test_quick_games_are_written_together(store: Store) -> None:
    """Twenty games of a few ms each: a handful of transactions (the lines of the games that ended
    while one was written go together in the next), not one per game; and every game lands."""
    match_id = running_match(store)
    writes: list[str] = []

    @event.listens_for(store.engine, "before_cursor_execute")
    def note(connection: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.startswith("INSERT INTO live_replays"):
            writes.append(statement)

    with LiveReplay(store, match_id, "w1") as live:
        started = time.monotonic()
        play(live.add, games=20)
        played_s = time.monotonic() - started
        assert len(games_seen(store, match_id, 20)["games"]) == 20
    assert len(writes) <= 2 + played_s / WRITE_EVERY_S, (len(writes), played_s)
