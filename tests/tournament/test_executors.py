"""Tournaments end to end on real components: the local process pool, Celery workers on a
private Redis, SQLite and PostgreSQL, with workers killed and the broker restarted."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fleet import (
    THREE_BOTS,
    Workers,
    assert_complete_exactly_once,
    make_tournament,
    outcomes,
    run_celery,
    run_local,
    sqlite_store,
)
from redis import Redis
from services import PrivateRedis, free_port, private_postgres_server, shared_postgres_database
from sqlalchemy import func, select, update

from arena.sandbox.bubblewrap import FOLDER_PREFIX, sweep_leftovers
from arena.store.db import Store
from arena.store.models import GameOutcome, Match, MatchStatus, Rating, RatingPoint
from arena.tournament import executors
from arena.tournament.broker import QUEUE


@pytest.fixture
def workers(redis: PrivateRedis, home: Path) -> Iterator[Workers]:
    pool = Workers(redis.url, home)
    yield pool
    pool.stop()


SIX_BOTS = {f"r{index}": "builtin:random" for index in range(3)} | {
    f"h{index}": "builtin:heuristic" for index in range(3)
}


def test_local_pool_and_celery_give_identical_results(
    home: Path, workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_BROKER_URL", workers.broker)
    local = Store(f"sqlite:///{home / 'local.db'}")
    local.upgrade()
    local_id = make_tournament(local, SIX_BOTS, seats=3, games=3, seed=9)
    run_local(local_id, local.url, workers=2)
    assert_complete_exactly_once(local, local_id, games=3)

    celery = Store(f"sqlite:///{home / 'celery.db'}")
    celery.upgrade()
    celery_id = make_tournament(celery, SIX_BOTS, seats=3, games=3, seed=9)
    workers.start(celery.url, concurrency=2)
    run_celery(celery_id, celery.url)
    assert_complete_exactly_once(celery, celery_id, games=3)

    # 20 matches (every 3 of 6 bots), the same seeds: the very same games, game for game.
    assert len(outcomes(local, local_id)) == 20 * 3
    assert outcomes(local, local_id) == outcomes(celery, celery_id)


def test_a_four_team_kozel_round_robin_is_the_same_on_both_executors(
    home: Path, workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_BROKER_URL", workers.broker)
    teams = {f"t{index}": ("builtin:heuristic", "builtin:random")[index % 2] for index in range(4)}
    stores = {}
    for executor in ("local", "celery"):
        store = Store(f"sqlite:///{home / f'kozel-{executor}.db'}")
        store.upgrade()
        stores[executor] = (store, make_tournament(store, teams, seats=4, games=2, seed=6, game="kozel"))
    run_local(stores["local"][1], stores["local"][0].url, workers=2)
    workers.start(stores["celery"][0].url, concurrency=2)
    run_celery(stores["celery"][1], stores["celery"][0].url)
    for store, tournament_id in stores.values():
        assert_complete_exactly_once(store, tournament_id, games=2)
    local, celery = (outcomes(store, tournament_id) for store, tournament_id in stores.values())
    assert len(local) == 6 * 2  # every pair of the 4 teams once, 2 games each
    assert local == celery
    # A team's bot sits on both seats of its side.
    assert all(seats[0] == seats[2] and seats[1] == seats[3] for _, _, seats, _ in local)


def _wait_until_running(store: Store, tournament_id: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with store.session() as session:
            running = session.scalar(
                select(func.count()).where(
                    Match.tournament_id == tournament_id, Match.status == MatchStatus.RUNNING
                )
            )
        if running:
            return
        time.sleep(0.1)
    pytest.fail("no match started running")


def _run_in_thread(tournament_id: int, url: str, **options: Any) -> threading.Thread:
    thread = threading.Thread(target=run_celery, args=(tournament_id, url), kwargs=options, daemon=True)
    thread.start()
    return thread


def test_a_worker_killed_mid_match_its_match_runs_again_within_30_s(
    home: Path, workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Default settings: the worker's lease on its match expires, and the coordinator, knowing the
    # task lost, sends the match again at once.
    monkeypatch.setenv("ARENA_BROKER_URL", workers.broker)
    store = sqlite_store(home)
    bots = {"r0": "builtin:random", "h0": "builtin:heuristic"}
    tournament_id = make_tournament(store, bots, seats=2, games=400, seed=2)
    victim = workers.start(store.url)
    coordinator = _run_in_thread(tournament_id, store.url)
    _wait_until_running(store, tournament_id)
    time.sleep(0.5)
    workers.kill(victim)
    killed = time.monotonic()
    workers.start(store.url, name="rescuer")
    recovered = None
    while recovered is None and time.monotonic() - killed < 60:
        with store.session() as session:
            attempts = session.scalar(select(Match.attempts).where(Match.tournament_id == tournament_id))
        if attempts == 2:
            recovered = time.monotonic() - killed
        time.sleep(0.1)
    assert recovered is not None and recovered < 30, recovered
    print(f"kill -9 of a worker: its match running again after {recovered:.1f} s")
    coordinator.join(timeout=240)
    assert not coordinator.is_alive(), "the tournament did not complete"
    assert_complete_exactly_once(store, tournament_id, games=400)
    with store.session() as session:
        worker = session.scalar(select(Match.worker).where(Match.tournament_id == tournament_id))
    assert worker is not None and worker.startswith("rescuer:")
    # The killed worker's sandbox folders went with it: the next sandbox on the machine swept them.
    assert sweep_leftovers() == []


def test_folders_of_a_killed_process_are_swept_while_it_is_still_a_zombie() -> None:
    # A killed worker's process may stay a zombie until some init reaps it (seconds, here): its
    # sandbox folders are swept all the same, by the next sandbox on the machine.
    child = os.fork()
    if child == 0:
        os._exit(0)
    try:
        while Path(f"/proc/{child}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
            time.sleep(0.01)
        folder = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{child}-code-"))
        ours = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-code-"))
        swept = sweep_leftovers()
        assert folder in swept and not folder.exists()
        assert ours.exists() and ours not in swept
        ours.rmdir()
    finally:
        os.waitpid(child, 0)


def test_redis_restarted_mid_tournament_nothing_lost_or_duplicated(
    home: Path, workers: Workers, redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_BROKER_URL", redis.url)
    store = sqlite_store(home)
    tournament_id = make_tournament(store, THREE_BOTS, seats=2, games=20, seed=5, rounds=3)
    workers.start(store.url)
    coordinator = _run_in_thread(tournament_id, store.url)
    _wait_until_running(store, tournament_id)
    redis.restart()  # no persistence: every queued task is gone
    coordinator.join(timeout=240)
    assert not coordinator.is_alive(), "the tournament did not complete"
    assert_complete_exactly_once(store, tournament_id, games=20)


def test_two_workers_on_postgresql_record_200_matches_exactly_once(
    home: Path, workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_BROKER_URL", workers.broker)
    with shared_postgres_database() as url:
        store = Store(url)
        store.upgrade()
        bots = {"r0": "builtin:random", "h0": "builtin:heuristic"}
        tournament_id = make_tournament(store, bots, seats=2, games=1, seed=8, rounds=200, rated=True)
        workers.start(store.url)
        workers.start(store.url)
        run_celery(tournament_id, store.url, poll=0.25)
        assert_complete_exactly_once(store, tournament_id, games=1)
        with store.session() as session:
            matches = session.scalar(select(func.count()).where(Match.tournament_id == tournament_id))
            results = session.scalar(
                select(func.count())
                .select_from(GameOutcome)
                .join(Match)
                .where(Match.tournament_id == tournament_id)
            )
            workers_seen = set(
                session.scalars(select(Match.worker).where(Match.tournament_id == tournament_id))
            )
            # concurrent live Elo updates lock the rows they move: none is lost
            ratings = session.scalars(select(Rating)).all()
            live_points = session.scalar(
                select(func.count()).select_from(RatingPoint).where(RatingPoint.kind == "live")
            )
        store.dispose()
    assert matches == 200 and results == 200
    assert sorted(row.live_games for row in ratings) == [200, 200] and live_points == 400
    assert sum(row.live_elo for row in ratings) == pytest.approx(3000.0)
    assert len(workers_seen) >= 2, "both workers should have run matches"


def test_a_database_outage_of_10_s_costs_no_result(
    home: Path, workers: Workers, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Workers and coordinator wait for the database; a match that finishes meanwhile keeps its
    # result until the database takes it: no match is ever played twice.
    monkeypatch.setenv("ARENA_BROKER_URL", workers.broker)
    with private_postgres_server() as postgres:
        store = Store(postgres.url)
        store.upgrade()
        tournament_id = make_tournament(store, THREE_BOTS, seats=2, games=40, seed=4, rounds=2)
        workers.start(store.url)
        workers.start(store.url)
        problems: list[str] = []
        coordinator = _run_in_thread(tournament_id, store.url, on_problem=problems.append)
        _wait_until_running(store, tournament_id)
        postgres.stop()
        time.sleep(10)
        postgres.start()
        coordinator.join(timeout=240)
        assert not coordinator.is_alive(), "the tournament did not complete"
        assert any("the database is out of reach" in problem for problem in problems), problems
        assert_complete_exactly_once(store, tournament_id, games=40)
        with store.session() as session:
            attempts = session.scalars(
                select(Match.attempts).where(Match.tournament_id == tournament_id)
            ).all()
        store.dispose()
    assert set(attempts) == {1}, attempts


def test_each_match_is_sent_once_while_its_task_is_safe(
    home: Path, workers: Workers, redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One worker, matches waiting in the queue well past the coordinator's look at the broker:
    # none is sent again, since the broker still holds every task. The look comes after 1 s here
    # (5 s in use), so that the queue waits past it however fast the matches are played.
    monkeypatch.setenv("ARENA_BROKER_URL", redis.url)
    monkeypatch.setattr(executors, "LOST_AFTER_S", 1.0)
    store = sqlite_store(home)
    tournament_id = make_tournament(store, THREE_BOTS, seats=2, games=100, seed=7, rounds=4)
    workers.start(store.url)
    started = time.monotonic()
    run_celery(tournament_id, store.url)
    assert time.monotonic() - started > 4 * executors.LOST_AFTER_S  # long enough for the look to happen
    assert_complete_exactly_once(store, tournament_id, games=100)
    client = Redis.from_url(redis.url)
    sent = int(client.info("commandstats")["cmdstat_lpush"]["calls"])
    client.close()
    assert sent == 12, sent


def test_a_task_a_worker_is_taking_is_not_lost_for_the_moment_the_broker_does_not_show_it(
    redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A worker takes a task out of the queue and only then puts it among the unacknowledged: for
    # that moment (longer on a busy machine) the broker shows it nowhere. It is no loss.
    monkeypatch.setenv("ARENA_BROKER_URL", redis.url)
    monkeypatch.setattr(executors, "LOST_AFTER_S", 0.0)
    celery = executors.CeleryWorkers(queue_ahead=2)
    client = Redis.from_url(redis.url)
    try:
        assert celery.room({7}) == 2 and celery.send(7) and celery.room({7}) == 1
        taken = client.lpop(QUEUE)  # the worker has it, and the broker shows it nowhere
        assert isinstance(taken, bytes) and celery.room({7}) == 1 and celery.has(7)
        client.hset("unacked", "tag", json.dumps([json.loads(taken), "", QUEUE]))
        time.sleep(executors.MISSING_S)
        assert celery.room({7}) == 1 and celery.has(7)  # the broker shows it: in hand still
        client.hdel("unacked", "tag")  # gone for good (a broker restarted without its data)
        assert celery.room({7}) == 1
        time.sleep(executors.MISSING_S)
        assert celery.room({7}) == 2 and not celery.has(7)  # lost: it may be sent again
    finally:
        client.close()
        celery.close()


def test_a_coordinator_says_at_once_when_nothing_can_run_its_matches(
    home: Path, redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = sqlite_store(home)
    tournament_id = make_tournament(store, {"r0": "builtin:random", "r1": "builtin:random"}, 2, 1, seed=1)
    for broker, expected in [
        (f"redis://:secret@127.0.0.1:{free_port()}/0", "cannot reach the broker at redis://127.0.0.1:"),
        (redis.url, "no worker answers on the broker"),
    ]:
        monkeypatch.setenv("ARENA_BROKER_URL", broker)
        problems: list[tuple[float, str]] = []
        started = time.monotonic()

        def heard(problem: str, problems: list[tuple[float, str]] = problems) -> None:
            problems.append((time.monotonic(), problem))

        coordinator = _run_in_thread(tournament_id, store.url, on_problem=heard)
        time.sleep(12)
        with store.session() as session:  # called off: the coordinator ends
            session.execute(update(Match).values(status=MatchStatus.VOID))
        coordinator.join(timeout=30)
        assert not coordinator.is_alive()
        said = [when - started for when, problem in problems if problem.startswith(expected)]
        # Within seconds, and again while it lasts; never with the broker's password.
        assert len(said) >= 2 and said[0] < 8, problems
        assert not any("secret" in problem for _, problem in problems)
        with store.session() as session:
            session.execute(update(Match).values(status=MatchStatus.PENDING))


def test_no_database_password_travels_through_the_broker_or_reaches_a_log(
    home: Path, workers: Workers, redis: PrivateRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ARENA_BROKER_URL", redis.url)
    password = "Tr4vels-N0where"
    with shared_postgres_database() as url:  # trust authentication: the password is not checked
        url = url.replace("postgres@", f"postgres:{password}@", 1)
        store = Store(url)
        store.upgrade()
        tournament_id = make_tournament(store, THREE_BOTS, seats=2, games=5, seed=3, rounds=2)
        log = home.parent / "worker.log"
        problems: list[str] = []
        coordinator = _run_in_thread(tournament_id, store.url, on_problem=problems.append)
        time.sleep(1)  # the tasks wait in the queue until a worker comes: look at them there
        client = Redis.from_url(redis.url)
        lists = [key for key in client.scan_iter() if client.type(key) == b"list"]
        queued = [value for key in lists for value in client.lrange(key, 0, -1)]
        assert queued and all(password.encode() not in value for value in queued)
        workers.start(url, log=log)
        coordinator.join(timeout=240)
        assert not coordinator.is_alive(), "the tournament did not complete"
        assert_complete_exactly_once(store, tournament_id, games=5)
        every_value = b"".join(client.dump(key) or b"" for key in client.scan_iter())
        client.close()
        store.dispose()
    assert password.encode() not in every_value
    text = log.read_text()
    assert "arena.run_match" in text and password not in text
    assert not any(password in problem for problem in problems)
