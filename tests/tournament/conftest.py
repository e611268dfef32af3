"""Fixtures of the tournament tests: a data folder of their own, a private Redis."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from services import PrivateRedis, private_redis


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.fixture
def redis() -> Iterator[PrivateRedis]:
    with private_redis() as server:
        yield server
