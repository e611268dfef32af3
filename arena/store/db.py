"""Connecting to the store: SQLite (WAL) by default, PostgreSQL when given a URL; its errors said in
one line."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import ArgumentError, IntegrityError, OperationalError, ProgrammingError
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker

from arena.store import migrate
from arena.store.errors import StoreError

DEFAULT_HOME = Path("arena-data")

_Result = TypeVar("_Result")


def data_home() -> Path:
    """This process's own data folder: ``$ARENA_HOME`` (default ./arena-data). It holds the
    embedded default's SQLite store, and copies of what the store keeps (bot code as folders,
    blobs); replays and logs go to the store, so no other host needs to see this folder."""
    return Path(os.environ.get("ARENA_HOME", DEFAULT_HOME)).resolve()


def default_url(home: Path | None = None) -> str:
    """``$ARENA_DATABASE_URL``, else an SQLite file in ``home`` (default ``data_home()``)."""
    if url := os.environ.get("ARENA_DATABASE_URL"):
        return url
    return f"sqlite:///{((home or data_home()) / 'arena.db').resolve()}"


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for ``url``, or ``StoreError`` naming what is wrong with it: its scheme at most,
    never the rest of it (it may hold a password)."""
    scheme = url.partition("://")[0] if "://" in url else ""
    try:
        if scheme.startswith("sqlite"):
            path = url.removeprefix("sqlite:///")
            if path and path != ":memory:":
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(url, connect_args={"timeout": 30})
            event.listen(engine, "connect", _sqlite_pragmas)
            return engine
        return create_engine(url, pool_pre_ping=True)
    except (ArgumentError, ImportError) as error:
        if not scheme:
            problem = "is not a URL"
        elif isinstance(error, ImportError):
            problem = f"needs a database driver that is not installed ({scheme!r})"
        else:
            problem = f"has a scheme that names no database arena can use ({scheme!r})"
        raise StoreError(
            f"the database URL (--db or ARENA_DATABASE_URL) {problem}: "
            "use sqlite:///PATH or postgresql://USER@HOST/DATABASE"
        ) from None


def once_more_on_conflict(work: Callable[[], _Result]) -> _Result:
    """``work()``, a transaction of its own, run once more if it lost a race to insert a row that a
    concurrent transaction inserted first (a UNIQUE conflict): the second run finds that row."""
    try:
        return work()
    except IntegrityError:
        return work()


class Store:
    """An engine and its sessions. ``session()`` commits on success and rolls back on error."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_url()
        self.engine = make_engine(self.url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def session(self) -> Iterator[Session]:
        with self._sessions() as session, session.begin():
            yield session

    def upgrade(self) -> None:
        """Bring the schema to the newest migration (``arena db upgrade``). On SQLite, commands
        started together on a new data folder each do it at first use: one at a time, under a
        lock beside the database file, so the second finds the schema made."""
        path = self.engine.url.database
        if not self.url.startswith("sqlite") or not path or path == ":memory:":
            migrate.upgrade(self.url)
            return
        with open(f"{path}.upgrade-lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            migrate.upgrade(self.url)

    def dispose(self) -> None:
        self.engine.dispose()


def insert_new(session: Session, model: type[DeclarativeBase], rows: list[dict[str, Any]], key: str) -> None:
    """Insert the ``rows`` whose ``key`` is not in ``model``'s table yet, leaving the others as they
    are: safe when another transaction inserts the same keys at once (``ON CONFLICT DO NOTHING``, on
    SQLite and PostgreSQL alike)."""
    if not rows:
        return
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    session.execute(insert(model).values(rows).on_conflict_do_nothing(index_elements=[key]))


@contextmanager
def database_errors() -> Iterator[None]:
    """A database that cannot be reached, or lacks the schema, as a ``StoreError`` in one line."""
    try:
        yield
    except (OperationalError, ProgrammingError) as error:
        problem = " ".join(str(error.orig).split())  # one line
        if isinstance(error, ProgrammingError) or "no such table" in problem:
            raise StoreError(f"the database is not ready ({problem}); run `arena db upgrade`") from error
        raise StoreError(f"cannot use the database: {problem}") from error
