"""Shared fixtures: the store on both supported databases, a data folder, a private Redis, the
starter kits built."""

from __future__ import annotations

# Before any test module loads grpc: the arena's side of every match a test plays moves its bytes
# as the arena's does (a test module may import grpc itself, ahead of the arena's modules).
import arena.transport.grpc_io  # noqa: F401

# isort: split
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from services import PrivateRedis, private_redis, shared_postgres_database
from starter_kits import StarterKits

from arena.store.db import Store


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    """A migrated, empty store: an SQLite file, or a throwaway database on the shared PostgreSQL."""
    if request.param == "sqlite":
        store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
        store.upgrade()
        yield store
        store.dispose()
        return
    with shared_postgres_database() as url:
        store = Store(url)
        store.upgrade()
        yield store
        store.dispose()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``$ARENA_HOME`` for the test: a folder of its own (made when first used)."""
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def redis() -> Iterator[PrivateRedis]:
    """A private Redis (random port, no persistence), stopped afterwards."""
    with private_redis() as server:
        yield server


@pytest.fixture(scope="session")
def starter_kits(tmp_path_factory: pytest.TempPathFactory) -> StarterKits:
    """The starter kits of sdk/starters, each built on first use, once per test run (its parallel
    workers share the builds): ``starter_kits.built("go")`` is the built bot folder."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's own folder, above each worker's
    return StarterKits(base / "starters")


FAST_FIRST = ("games", "conformance", "runner", "wire", "sdk", "checks", "ratings", "store", "submissions")
"""Test folders of quick, in-process tests. A serial run takes them first (sandboxes, servers,
browsers and workers after), so that a broken rule or codec fails it in its first minutes; each
parallel worker takes them last, so that the long tests start first and the quick ones fill
the gaps at the end."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Order the quick folders (``FAST_FIRST``) and the rest, each in its usual order."""
    parallel = bool(os.environ.get("PYTEST_XDIST_WORKER"))

    def quick(item: pytest.Item) -> bool:
        parts = item.path.relative_to(Path(__file__).parent).parts
        return len(parts) == 1 or parts[0] in FAST_FIRST

    items.sort(key=lambda item: quick(item) == parallel)
