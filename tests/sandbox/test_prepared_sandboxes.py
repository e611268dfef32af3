"""Sandboxes prepared ahead (``arena.sandbox.warm``): each serves one bot and keeps nothing of it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandboxed import bubblewrap, lines_starting, no_bot_process_outlives_a_match, play, stage

from arena.manifest import SOURCE_ROOT
from arena.sandbox.warm import POOL
from arena.tournament.play import SEATS_AHEAD

__all__ = ["no_bot_process_outlives_a_match"]  # the autouse fixture, for every test here

BOTS = Path(__file__).resolve().parents[1] / "bots"
ROOT = Path(__file__).resolve().parents[2]


def wait_until_ready(count: int, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while POOL.ready() < count:
        assert time.monotonic() < deadline, f"the pool prepared {POOL.ready()} of {count} sandboxes"
        time.sleep(0.01)


def made_by_bubblewrap() -> list[str]:
    """What a new sandbox's /tmp holds: the folders bubblewrap makes for binds of the sources or
    the runtime when they live under /tmp on the host (a checkout in /tmp, say)."""
    bound = (SOURCE_ROOT, Path(sys.prefix), Path(sys.base_prefix))
    return sorted({path.relative_to("/tmp").parts[0] for path in bound if path.is_relative_to("/tmp")})


def test_each_bot_gets_a_prepared_sandbox_of_its_own_and_finds_nothing_of_the_last(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", BOTS / "tmp_marker.py")
    sandbox = bubblewrap()
    logs: list[str] = []
    for round_number in range(3):
        served = POOL.served
        if round_number:
            wait_until_ready(2)
        logs += play([str(bot), str(bot)], sandbox).logs
        if round_number:
            assert POOL.served == served + 2, "a bot after the first match ran on no prepared sandbox"
    for log in logs:
        assert lines_starting(log, "found in /tmp: ") == [f"found in /tmp: {made_by_bubblewrap()}"], log
    assert len(sandbox.uids) >= 2


FIRST_MATCH = """
import asyncio
from arena.games.registry import get_game
from arena.sandbox.backends import make_sandbox
from arena.sandbox.warm import POOL
from arena.tournament.play import SEATS_AHEAD
from arena.tournament.executors import _worker_started
from arena.transport.process import play_match

_worker_started()
ready = POOL.ready()
game = get_game("kozel")
record = asyncio.run(
    play_match(game, game.config_type(), ["builtin:random"] * 4, make_sandbox("bubblewrap"), games=1, seed=3)
)
print(ready, POOL.served, *sorted({status.value for status in record.games[0].statuses}))
"""


@pytest.mark.bots_in_other_processes
def test_an_executors_process_readies_its_first_match_before_it_comes() -> None:
    # A local pool's process (and a Celery worker's) prepares a table's sandboxes at its start:
    # its first match's four bots all start in sandboxes prepared ahead, like every later match's.
    output = subprocess.run(
        [sys.executable, "-c", FIRST_MATCH], cwd=ROOT, capture_output=True, text=True, timeout=120, check=True
    ).stdout
    ready, served, statuses = output.split(" ", 2)
    assert int(ready) >= SEATS_AHEAD == 4
    assert int(served) == 4, output
    assert statuses.split() == ["ok"]
