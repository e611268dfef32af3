"""Hostile bots against the arena's transport, each in the real bubblewrap sandbox over the real
gRPC server: a bot may stall its sends, flood its log, open streams without end, hold every
connection it can get, or send text meant for a terminal. Each match must finish in time, the
other seat must stay ``ok``, and the arena's memory must stay bounded.
"""

from __future__ import annotations

import gc
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sandboxed import (
    CLOCKS,
    GAMES,
    SEED,
    bubblewrap,
    lines_starting,
    no_bot_process_outlives_a_match,
    run_bounded,
    stage,
)

from arena.games.base import Game
from arena.games.believe import BelieveGame
from arena.games.edible import Edible
from arena.runner.logs import CappedLog
from arena.runner.records import FAULT_DETAIL_BYTES, MatchRecord
from arena.runner.terms import Limits, Status
from arena.sandbox import Sandbox
from arena.transport.process import play_match

# Run alone, after the parallel tests (deploy/test.sh): floods must be drained within a 2 s clock.
pytestmark = pytest.mark.serial

__all__ = ["no_bot_process_outlives_a_match"]

BOTS = Path(__file__).resolve().parents[1] / "bots"
EDIBLE = Edible()
MEMORY_MB = 48
"""How far the arena's memory may rise over a match whatever the bot does (bubblewrap, grpc and
the match itself included)."""
OPPONENT_MS = 10.0
"""The most the other seat may take per decision on average (about 1 ms undisturbed)."""


def play(
    bot: Path,
    sandbox: Sandbox,
    limits: Limits,
    game: Game[Any, Any, Any] = EDIBLE,
    games: int = GAMES,
    hang_s: float = 30,
) -> MatchRecord:
    """``bot`` against ``builtin:random``, failing the test if the match outlasts ``hang_s``."""
    specs = [str(bot), "builtin:random"]
    config = game.config_type()
    return run_bounded(
        lambda: play_match(game, config, specs, sandbox, games=games, seed=SEED, limits=limits), hang_s
    )


def memory_kb(field: str) -> int:
    """This process's (the arena's) ``VmRSS`` or ``VmHWM`` (its peak), in KiB."""
    status = Path("/proc/self/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB$", status, re.MULTILINE).group(1))  # type: ignore[union-attr]


def peak_growth_mb(play: Callable[[], MatchRecord]) -> tuple[MatchRecord, float]:
    """``play()``'s record and how far the arena's memory rose above where it was, at its peak."""
    gc.collect()
    Path("/proc/self/clear_refs").write_text("5")  # the peak starts again from now
    before = memory_kb("VmRSS")
    record = play()
    return record, (memory_kb("VmHWM") - before) / 1024


def stage_raw(folder: Path, bot: str, **target: Any) -> Path:
    """Stage a bot that speaks HTTP/2 by hand, with its helper module beside it."""
    path = stage(folder, BOTS / bot, **target)
    shutil.copy(BOTS / "h2raw.py", folder)
    return path


# -- a bot that never reads (class 4) --


@pytest.mark.parametrize("after_match_start", [False, True])
def test_a_bot_that_closes_its_receive_window_is_cut_off(tmp_path: Path, after_match_start: bool) -> None:
    bot = stage_raw(tmp_path / "code", "stalled_window.py", after_match_start=after_match_start)
    started = time.monotonic()
    record = play(bot, bubblewrap(), Limits(decision_ms=300, bank_ms=300))
    elapsed = time.monotonic() - started
    log = record.logs[0]
    assert len(record.games) == GAMES, log
    # Each send to it is bounded and then it is gone: no second stall for the second game.
    assert elapsed < 10, log
    for game in record.games:
        assert game.statuses[game.seating.index(0)] is Status.TIMEOUT, (game.faults, log)
        assert game.statuses[game.seating.index(1)] is Status.OK, (game.faults, log)
    # It said Hello, so the arena answered (headers) and then found it no longer reading.
    assert "frame 1 flags 4 stream 1" in log, log
    assert lines_starting(log, "arena: timeout: stopped reading the arena's messages") != [], log


# -- a bot that floods what the arena keeps (class 5) --

FLOOD_BYTES = 48 * 1024 * 1024


def check_log(log: str) -> None:
    assert len(log.encode()) <= CappedLog().limit, len(log.encode())


@pytest.mark.parametrize("kind", ["no_newline", "traceback", "newlines"])
def test_a_flood_on_stderr_stays_within_the_log_cap(tmp_path: Path, kind: str) -> None:
    bot = stage(tmp_path / "code", BOTS / "stderr_flood.py", kind=kind, bytes=FLOOD_BYTES)
    sandbox = bubblewrap()
    record, growth_mb = peak_growth_mb(lambda: play(bot, sandbox, CLOCKS))
    log = record.logs[0]
    check_log(log)
    assert "bytes of log dropped" in log
    if kind == "traceback":
        assert "bytes of traceback dropped" in log
    assert growth_mb < MEMORY_MB, growth_mb
    for game in record.games:
        assert set(game.statuses) == {Status.OK}, (game.faults, log[-2000:])
    # The arena kept up with it without slowing the other seat down.
    assert record.agent_summary()[1]["mean_ms"] < OPPONENT_MS, record.agent_summary()


@pytest.mark.parametrize(("cards", "status"), [(60_000, Status.ILLEGAL_ACTION), (3_500_000, Status.CRASH)])
def test_a_huge_illegal_action_leaves_a_short_fault(tmp_path: Path, cards: int, status: Status) -> None:
    # Under the arena's message cap, the action is refused as illegal; over it, grpc ends the
    # stream (the SDK then raises, and its process exits: ``crash``).
    bot = stage(tmp_path / "code", BOTS / "huge_action.py", cards=cards)
    sandbox = bubblewrap()
    record, growth_mb = peak_growth_mb(lambda: play(bot, sandbox, CLOCKS, BelieveGame()))
    check_log(record.logs[0])
    faults = [fault for game in record.games for fault in game.faults]
    assert [fault.status for fault in faults] == [status], faults
    assert all(len(fault.detail.encode()) <= FAULT_DETAIL_BYTES for fault in faults)
    assert growth_mb < MEMORY_MB, growth_mb
    for game in record.games:
        assert game.statuses[game.seating.index(1)] is Status.OK


# -- a bot that opens streams without end (class 6) --


def test_a_flood_of_streams_stays_bounded_and_the_match_plays_on(tmp_path: Path) -> None:
    # Its honest stream keeps playing: the flood only ever meets the caps (streams per
    # connection, connections, the Hello deadline) and refusals.
    bot = stage_raw(tmp_path / "code", "stream_flood.py", connections=100, streams=500)
    sandbox = bubblewrap()
    limits = Limits(decision_ms=10_000, bank_ms=0)
    record, growth_mb = peak_growth_mb(lambda: play(bot, sandbox, limits, games=4))
    log = record.logs[0]
    assert lines_starting(log, "flood: ") != [], log
    assert growth_mb < MEMORY_MB, (growth_mb, log)
    for game in record.games:
        assert set(game.statuses) == {Status.OK}, (game.faults, log)
    assert record.agent_summary()[1]["mean_ms"] < OPPONENT_MS, record.agent_summary()


# -- a bot that takes every connection, starving the seats that dial in after it --


def test_a_bot_holding_connections_starves_no_other_seat(tmp_path: Path) -> None:
    # The other seat takes 1.5 s to start; meanwhile the hog holds all the connections it can
    # get. Every seat dials a socket of its own, so the hog only ever fills its own.
    hog = stage_raw(tmp_path / "hog", "connection_hog.py", connections=64)
    late = stage(tmp_path / "late", BOTS / "late_starter.py")
    sandbox = bubblewrap()
    specs = [str(hog), str(late)]
    config = EDIBLE.config_type()
    record = run_bounded(
        lambda: play_match(EDIBLE, config, specs, sandbox, games=GAMES, seed=SEED, limits=CLOCKS)
    )
    log = record.logs[0]
    assert lines_starting(log, "hog: ") != [], log
    for game in record.games:
        assert game.statuses[game.seating.index(1)] is Status.OK, (game.faults, record.logs[1])


# -- text meant for the arena's terminal (class 12) --


def test_escape_sequences_in_a_goaway_never_reach_the_arenas_terminal(tmp_path: Path) -> None:
    bot = stage_raw(tmp_path / "code", "goaway_escapes.py")
    record = play(bot, bubblewrap(), CLOCKS)
    for game in record.games:
        assert game.statuses[game.seating.index(1)] is Status.OK, game.faults
    # The arena as a user runs it, in a process of its own (grpc reads its settings at start).
    logs = tmp_path / "logs"
    command = [
        sys.executable,
        "-m",
        "arena.cli",
        "play",
        "edible",
        str(bot),
        "builtin:random",
        "--games",
        "2",
    ]
    command += ["--games", "2", "--replays", str(tmp_path / "replays"), "--logs", str(logs), "--quiet"]
    done = subprocess.run(command, capture_output=True, timeout=60, check=True)
    assert b"\x1b" not in done.stdout + done.stderr, done.stderr
    assert b"RESULT: goaway_escapes" not in done.stdout + done.stderr
    for log in logs.iterdir():
        assert "\x1b" not in log.read_text()
