"""Scaling out across hosts, on one machine: a worker on a host of its own (``tests/netns.py``: a
network namespace joined by a veth, its own mount namespace) with its own empty data folder and
no folder of the coordinator's, playing against PostgreSQL and Redis reached over the veth; the
coordinator and the web app on this machine, each with its own data folder."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from fleet import ROOT, assert_complete_exactly_once
from fleet import arena as arena_command
from netns import Host, network_host
from redis import Redis
from served import Client, start_server
from services import private_postgres_server, private_redis
from sqlalchemy import select

from arena.store.db import Store
from arena.store.models import Match

WORKER = "netns-worker"
GAMES = 20


def arena(*args: str, home: Path, token: str | None = None) -> str:
    """Run an ``arena`` command on this machine, its data folder ``home``; its output."""
    done = arena_command(*args, home=home, token=token)
    assert done.returncode == 0, f"arena {' '.join(args)}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done.stdout


def drive_tournament(tournament_id: int, home: Path, database: str, token: str) -> None:
    """On this machine (its broker: ``$ARENA_BROKER_URL``): the scheduler service sends the
    matches to the workers, and ``arena tournament run`` follows them until every one is over."""
    env = {**os.environ, "ARENA_HOME": str(home), "ARENA_DATABASE_URL": database}
    with open(home.parent / "scheduler.log", "wb") as log:
        scheduler = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "scheduler", "--executor", "celery"],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        arena(
            "tournament",
            "run",
            str(tournament_id),
            "--executor",
            "celery",
            "--db",
            database,
            home=home,
            token=token,
        )
    finally:
        scheduler.terminate()
        scheduler.wait(timeout=20)


@contextmanager
def worker_on(host: Host, env: dict[str, str], log: Path) -> Iterator[None]:
    """``arena worker`` on ``host``, its output in ``log`` (a file of this machine's)."""
    command = [sys.executable, "-m", "arena.cli", "worker", "--hostname", WORKER, "--concurrency", "2"]
    with open(log, "wb") as output:
        worker = host.popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    try:
        yield
    finally:
        worker.terminate()
        with suppress(subprocess.TimeoutExpired):  # else the host's end kills it
            worker.wait(timeout=20)


@contextmanager
def watching(host: Host) -> Iterator[set[str]]:
    """The names of every process seen on ``host`` while the block runs (looked at every 50 ms)."""
    seen: set[str] = set()
    done = threading.Event()

    def look() -> None:
        while not done.wait(0.05):
            seen.update(host.process_names())

    thread = threading.Thread(target=look, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        done.set()
        thread.join()


def test_a_worker_on_another_host_plays_over_the_network_and_the_web_app_serves_its_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    coordinator_home, web_home, worker_home = (tmp_path / name for name in ("coordinator", "web", "worker"))
    coordinator_home.mkdir()
    web_home.mkdir()
    with (
        network_host() as host,
        private_postgres_server(also_on=host.outside) as postgres,
        private_redis(also_on=host.outside) as redis,
    ):
        # The worker's host sees none of this machine's data: not the coordinator's or the web
        # app's folders (all under tmp_path), nor the database's or the broker's.
        host.hide(tmp_path, postgres.folder, redis.folder)
        assert host.run(["mkdir", worker_home]).returncode == 0  # in the host's own tmpfs

        monkeypatch.setenv("ARENA_BROKER_URL", redis.url)
        database = ["--db", postgres.url]
        arena("db", "upgrade", *database, home=coordinator_home)
        created = arena("user", "create", "operator", *database, home=coordinator_home)
        token = created.strip().splitlines()[-1]  # the first user: an admin
        created = arena(
            *["tournament", "create", "--game", "edible", "--bots", "builtin:random", "builtin:heuristic"],
            *["--seats", "2", "--games-per-match", str(GAMES), "--rounds", "3", "--seed", "11", *database],
            home=coordinator_home,
            token=token,
        )
        found = re.match(r"tournament (\d+):", created)
        assert found, created
        tournament_id = int(found.group(1))

        there = {
            **os.environ,
            "ARENA_HOME": str(worker_home),
            "ARENA_DATABASE_URL": postgres.url_at(host.outside.ip),
            "ARENA_BROKER_URL": redis.url_at(host.outside.ip),
        }
        with worker_on(host, there, tmp_path / "worker.log"), watching(host) as seen:
            drive_tournament(tournament_id, coordinator_home, postgres.url, token)
            broker = Redis.from_url(redis.url)
            clients = broker.client_list()
            broker.close()

        # The worker's broker connection came over the veth, and its matches' bots ran in bubblewrap.
        assert any(client["addr"].startswith(f"{host.inside.ip}:") for client in clients), clients
        assert "bwrap" in seen, seen
        store = Store(postgres.url)
        try:
            assert_complete_exactly_once(store, tournament_id, games=GAMES)
            with store.session() as session:
                matches = session.execute(
                    select(Match.id, Match.worker, Match.attempts).where(Match.tournament_id == tournament_id)
                ).all()
        finally:
            store.dispose()
        assert len(matches) == 3
        assert all(worker.startswith(f"{WORKER}:") and attempts == 1 for _, worker, attempts in matches), (
            matches
        )
        assert not (coordinator_home / "replays").exists()  # the worker wrote nothing here

        # The web app, on this machine with a data folder of its own, serves what the worker played.
        process, base = start_server(web_home, {"ARENA_DATABASE_URL": postgres.url})
        try:
            web = Client(base, token)
            state = web.get(f"/api/v1/tournaments/{tournament_id}").json()
            assert state["counts"] == {"done": 3}, state
            match_id = matches[0][0]
            seats = web.get(f"/api/v1/matches/{match_id}").json()["seats"]
            assert [seat["games"] for seat in seats] == [GAMES, GAMES] and all(
                s["log_visible"] for s in seats
            )
            assert web.get(f"/matches/{match_id}").status == 200
            replay = web.get(f"/api/v1/matches/{match_id}/replay/0")
            log = web.get(f"/matches/{match_id}/logs/0")
        finally:
            process.terminate()
            process.wait(timeout=20)
        errors = re.findall(r"^[\w.]+(?:Error|Exception): .*$", (web_home / "serve.log").read_text(), re.M)
        assert (replay.status, log.status) == (200, 200), (
            f"replay: {replay.status} {replay.text[:200]}; log: {log.status} {log.text[:200]}; the web app "
            f"said: {errors}"
        )
        assert replay.json()["games"] == GAMES and replay.json()["steps"], replay.text[:300]
        assert log.headers["content-type"].startswith("text/plain")


REACH = """
import socket, sys
for address, port in [(sys.argv[1], int(sys.argv[2])), ("127.0.0.1", int(sys.argv[3]))]:
    try:
        socket.create_connection((address, port), timeout=2).close()
        print("reached", address)
    except OSError as error:
        print("not", address, type(error).__name__)
"""


def test_a_host_reaches_this_machine_only_over_its_veth_sees_no_hidden_folder_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "secret").write_text("this machine's")
    with network_host() as host, socket.socket() as veth, socket.socket() as loopback:
        for listener, address in [(veth, str(host.outside.ip)), (loopback, "127.0.0.1")]:
            listener.bind((address, 0))
            listener.listen()
        ports = [str(listener.getsockname()[1]) for listener in (veth, loopback)]
        reach = host.run([sys.executable, "-c", REACH, str(host.outside.ip), *ports])
        assert reach.stdout.split("\n")[:2] == [
            f"reached {host.outside.ip}",
            "not 127.0.0.1 ConnectionRefusedError",  # the host's own loopback
        ], reach

        host.hide(tmp_path)
        assert host.run(["ls", "-A", tmp_path]).stdout == ""
        assert host.run(["sh", "-c", f"echo on the host > {tmp_path}/mine"]).returncode == 0
        assert host.run(["cat", tmp_path / "mine"]).stdout == "on the host\n"
        assert sorted(path.name for path in tmp_path.iterdir()) == ["secret"]

        # Processes left on the host: one it started, and an orphan (its parent gone).
        sleeper = host.popen(["sleep", "600"])
        assert host.run(["sh", "-c", "sleep 600 >/dev/null 2>&1 &"]).returncode == 0
        assert host.process_names() == {"sleep"} and len(host.pids()) == 3  # with the host's own

        with pytest.raises(RuntimeError), network_host() as failed:  # a test failing on its host
            failed.popen(["sleep", "600"])
            raise RuntimeError
        assert failed.leftovers() == []
    assert host.leftovers() == [] and sleeper.returncode == -signal.SIGKILL
