"""Real services for tests: private Redis and PostgreSQL instances (random port, temporary
folder, stopped afterwards) and throwaway databases on the machine's shared PostgreSQL.

Nothing here ever stops or reconfigures the machine's shared services. When a service cannot be
had, the tests fail with the reason: they are never skipped (CI must not pass without them). A
machine with no PostgreSQL running (a fresh one) gets a private server, started once for the
whole run, in place of the shared one; ``ARENA_TEST_POSTGRES`` names another shared server.

A private server listens on loopback; given ``also_on`` (an address of this machine with its
network, such as the host side of a test host's veth, ``tests/netns.py``) it listens there too and
takes clients from that network, reached through ``url_at(address)``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from ipaddress import IPv4Address, IPv4Interface
from pathlib import Path

import pytest

MACHINE_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
SHARED_POSTGRES = os.environ.get("ARENA_TEST_POSTGRES", MACHINE_POSTGRES)
DEBIAN_POSTGRES = Path("/usr/lib/postgresql")
"""Where Debian's postgresql package puts initdb and pg_ctl (VERSION/bin/, not on PATH)."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(check: object, what: str, timeout: float = 20.0) -> None:
    """Until ``check()`` holds; the test fails, saying ``what`` did not happen, after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    pytest.fail(f"{what}: not within {timeout:.0f} s")


def _accepts(address: str, port: int) -> bool:
    try:
        with socket.create_connection((address, port), timeout=0.5):
            return True
    except OSError:
        return False


class PrivateRedis:
    """A redis-server of our own, without persistence, on a random loopback port (and on
    ``also_on``'s address, if given)."""

    def __init__(self, also_on: IPv4Interface | None = None) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed (Debian: apt-get install redis-server)")
        self.binary = binary
        self.port = free_port()
        self.folder = Path(tempfile.mkdtemp(prefix="arena-redis-"))
        self.also_on = also_on
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return self.url_at("127.0.0.1")

    def url_at(self, address: str | IPv4Address) -> str:
        return f"redis://{address}:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                *([str(self.also_on.ip), "--protected-mode", "no"] if self.also_on else []),
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self._answers, f"a private redis answers on port {self.port}")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def private_redis(also_on: IPv4Interface | None = None) -> Iterator[PrivateRedis]:
    redis = PrivateRedis(also_on)
    redis.start()
    try:
        yield redis
    finally:
        redis.close()


def _postgres_program(name: str) -> str:
    """A PostgreSQL program: on PATH, or else the newest version's of Debian's packages."""
    found = shutil.which(name)
    if found is None:
        versions = sorted(DEBIAN_POSTGRES.glob(f"*/bin/{name}"), key=_major_version)
        found = str(versions[-1]) if versions else None
    if found is None:
        pytest.fail(f"PostgreSQL's {name} is not installed (Debian: apt-get install postgresql)")
    return found


def _major_version(program: Path) -> int:
    version = program.parent.parent.name
    return int(version) if version.isdigit() else 0


class PrivatePostgres:
    """A PostgreSQL server of our own (initdb in a temporary folder, random port), run as the
    postgres user, that a test may stop and start again (an outage). It listens on loopback, and
    on ``also_on``'s address for clients of its network if given."""

    def __init__(self, also_on: IPv4Interface | None = None) -> None:
        initdb, self.pg_ctl = _postgres_program("initdb"), _postgres_program("pg_ctl")
        self.folder = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.folder.chmod(0o755)
        self.data = self.folder / "data"
        self.port = free_port()
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres")
        self._run([initdb, "-D", str(self.data), "-A", "trust", "-U", "postgres"])
        self.listen = "127.0.0.1"
        self.also_on = also_on
        if also_on is not None:
            self.listen += f",{also_on.ip}"
            with open(self.data / "pg_hba.conf", "a") as rules:
                rules.write(f"host all all {also_on.network} trust\n")

    @property
    def url(self) -> str:
        return self.url_at("127.0.0.1")

    def url_at(self, address: str | IPv4Address) -> str:
        return f"postgresql+psycopg://postgres@{address}:{self.port}/postgres"

    def _run(self, command: list[str]) -> None:
        try:
            subprocess.run([*self.as_postgres, *command], check=True, capture_output=True)
        except subprocess.CalledProcessError as error:
            pytest.fail(f"cannot run PostgreSQL's {command[0]}: {error.stderr.decode(errors='replace')}")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses={self.listen} -c fsync=off"
        log = str(self.folder / "log")
        self._run([self.pg_ctl, "-D", str(self.data), "-o", options, "-w", "-l", log, "start"])
        if self.also_on is not None:  # PostgreSQL starts on loopback alone if it cannot listen there
            address = str(self.also_on.ip)
            wait_for(
                lambda: _accepts(address, self.port), f"private PostgreSQL answers on {address}:{self.port}"
            )

    def stop(self) -> None:
        """Down at once, every connection cut (as a crash or a network cut would)."""
        command = [*self.as_postgres, self.pg_ctl, "-D", str(self.data), "-m", "immediate", "stop"]
        subprocess.run(command, capture_output=True)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def private_postgres_server(also_on: IPv4Interface | None = None) -> Iterator[PrivatePostgres]:
    server = PrivatePostgres(also_on)
    try:
        server.start()
        yield server
    finally:
        server.close()


@contextmanager
def private_postgres() -> Iterator[str]:
    """A private PostgreSQL server's SQLAlchemy URL."""
    with private_postgres_server() as server:
        yield server.url


_stand_in: list[PrivatePostgres] = []
"""The private server that stands in for a machine PostgreSQL that does not answer, once started."""


def _shared_postgres() -> str:
    """The server throwaway databases are made on: the shared one, or a stand-in for the run."""
    import sqlalchemy as sa

    if _stand_in:
        return _stand_in[0].url
    try:
        with sa.create_engine(SHARED_POSTGRES, poolclass=sa.NullPool).connect():
            return SHARED_POSTGRES
    except sa.exc.OperationalError as error:
        if SHARED_POSTGRES != MACHINE_POSTGRES:  # a server named on purpose must be there
            pytest.fail(f"ARENA_TEST_POSTGRES={SHARED_POSTGRES} is not reachable: {error.orig}")
    server = PrivatePostgres()
    server.start()
    atexit.register(server.close)
    _stand_in.append(server)
    return server.url


@contextmanager
def shared_postgres_database() -> Iterator[str]:
    """A throwaway database on the machine's shared PostgreSQL; dropped afterwards."""
    import sqlalchemy as sa

    name = f"arena_test_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(_shared_postgres(), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    url = admin.url.set(database=name).render_as_string(hide_password=False)
    try:
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
