"""The scheduler service: concurrent tournaments take turns, and the service survives its own death
(a standby takes the role over) while `arena tournament run` only follows."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from datetime import timedelta
from pathlib import Path

from fleet import (
    ROOT,
    THREE_BOTS,
    Workers,
    assert_complete_exactly_once,
    make_tournament,
    sqlite_store,
)
from services import PrivateRedis, wait_for
from sqlalchemy import func, select, update

from arena.store import roles
from arena.store.db import Store
from arena.store.models import LadderState, Match, MatchStatus, Role, now
from arena.tournament.executors import LocalPool
from arena.tournament.scheduler import ROLE, Scheduler
from arena.web.views.tournaments import tournament_page


def start_order(store: Store) -> list[int]:
    """The tournament of each match that has started, in the order they started."""
    with store.session() as session:
        rows = session.execute(
            select(Match.tournament_id).where(Match.started_at.is_not(None)).order_by(Match.started_at)
        )
        return list(rows.scalars())


def test_concurrent_tournaments_take_turns_on_the_local_pool(home: Path) -> None:
    # Before: first in, first out: the second tournament waited for all six matches of the first.
    store = sqlite_store(home)
    first = make_tournament(store, THREE_BOTS, seats=2, games=2, seed=1, rounds=2)
    second = make_tournament(store, THREE_BOTS, seats=2, games=2, seed=2, rounds=2)
    finished: list[int] = []
    stop = threading.Event()

    def done(tournament_id: int) -> None:
        finished.append(tournament_id)
        if len(finished) == 2:
            stop.set()

    Scheduler(store, LocalPool(store.url, 1), on_done=done, poll=0.1).run(stop)
    assert sorted(finished) == [first, second]
    assert start_order(store) == [first, second] * 6
    for tournament_id in (first, second):
        assert_complete_exactly_once(store, tournament_id, games=2)


def read(log: Path) -> str:
    return log.read_text() if log.exists() else ""


def test_the_scheduler_service_interleaves_tournaments_and_a_standby_takes_over_when_it_dies(
    home: Path, redis: PrivateRedis
) -> None:
    store = sqlite_store(home)
    first = make_tournament(store, THREE_BOTS, seats=2, games=20, seed=1, rounds=2)
    second = make_tournament(store, THREE_BOTS, seats=2, games=20, seed=2, rounds=2)
    fleet = Workers(redis.url, home)
    logs = home.parent
    try:
        primary = fleet.scheduler(store.url, logs / "primary.log")
        wait_for(lambda: "matches go to" in read(logs / "primary.log"), "the scheduler starts", 60)
        fleet.scheduler(store.url, logs / "standby.log")
        wait_for(lambda: "standing by" in read(logs / "standby.log"), "the second one stands by", 60)
        fleet.start(store.url, concurrency=1)
        wait_for(lambda: len(start_order(store)) >= 4, "four matches start", 60)
        fleet.kill(primary)  # kill -9: it never gives its role back; the standby waits out the lease
        before_the_kill = start_order(store)
        follower = subprocess.run(
            [sys.executable, "-m", "arena.cli", "tournament", "run", str(second), "--executor", "celery"],
            env={**os.environ, "ARENA_BROKER_URL": redis.url, "ARENA_HOME": str(home)},
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert follower.returncode == 0, follower.stderr
        assert "matches: done 6" in follower.stdout

        def everything_done() -> bool:
            with store.session() as session:
                active = [MatchStatus.PENDING, MatchStatus.RUNNING]
                return not session.scalar(select(func.count()).where(Match.status.in_(active)))

        wait_for(everything_done, "both tournaments finish", 240)
        refitted = "(edible) has finished"
        wait_for(lambda: refitted in read(logs / "standby.log"), "the standby refits the ladder", 60)
    finally:
        fleet.stop()
    # The queue held a few matches at a time, chosen in turns: the tournaments alternate.
    assert before_the_kill == ([first, second] * 6)[: len(before_the_kill)]
    for tournament_id in (first, second):
        assert_complete_exactly_once(store, tournament_id, games=20)
    with store.session() as session:
        assert session.get(LadderState, "edible") is not None


def test_one_scheduler_holds_the_role_and_followers_hear_why_matches_wait(store: Store) -> None:
    tournament_id = make_tournament(store, THREE_BOTS, seats=2, games=1, seed=3)
    lease = timedelta(seconds=15)

    def page_says() -> str:
        with store.session() as session:
            return tournament_page(session, tournament_id).held_up_by

    assert page_says() == "no scheduler is running: start one (`arena scheduler`)"
    with store.session() as session:
        assert roles.take(session, ROLE, "first", lease, "no worker answers") is None
    assert page_says() == "no worker answers"
    with store.session() as session:  # a second one stands by while the lease holds
        assert roles.take(session, ROLE, "second", lease) == roles.Holder("first", "no worker answers")
    with store.session() as session:  # the first one died: its lease runs out
        session.execute(update(Role).values(lease_until=now() - timedelta(seconds=1)))
    with store.session() as session:
        assert roles.take(session, ROLE, "second", lease) is None
    assert page_says() == ""
    with store.session() as session:  # a clean stop frees the role at once
        roles.drop(session, ROLE, "second")
    assert page_says().startswith("no scheduler is running")
