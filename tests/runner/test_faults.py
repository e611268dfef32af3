"""Misbehaving bot processes over gRPC: each gets its own status, the match finishes, the other
seats' results stand, and the log keeps the bot's traceback."""

from __future__ import annotations

import asyncio
import shutil
import time
from pathlib import Path

import pytest

from arena.games.edible import Edible, EdibleConfig
from arena.runner.records import MatchRecord
from arena.runner.terms import Limits, Status
from arena.sandbox import NoSandbox
from arena.transport.process import play_match

BOTS = Path(__file__).resolve().parents[1] / "bots"
GAMES = 3


def play(specs: list[str], games: int = GAMES, limits: Limits | None = None) -> MatchRecord:
    return asyncio.run(
        play_match(
            Edible(),
            EdibleConfig(),
            specs,
            NoSandbox(),
            games=games,
            seed=5,
            limits=limits or Limits(decision_ms=500, bank_ms=200),
        )
    )


@pytest.mark.parametrize(
    ("bot", "status", "log_text"),
    [
        ("sleeper.py", Status.TIMEOUT, "no answer within 700 ms"),
        ("raiser.py", Status.CRASH, "ZeroDivisionError: raiser bot divides by zero on purpose"),
        ("illegal.py", Status.ILLEGAL_ACTION, "Bid(count=999)"),
        ("garbage.py", Status.PROTOCOL_ERROR, "expected an edible action, got nothing"),
        ("raw_bytes.py", Status.PROTOCOL_ERROR, "Wire format was corrupt"),
        ("exiter.py", Status.CRASH, "Fatal: exiter bot quits mid-game"),
    ],
)
def test_a_faulty_bot_gets_its_status_and_the_match_finishes(bot: str, status: Status, log_text: str) -> None:
    record = play([str(BOTS / bot), "builtin:random", "builtin:heuristic"])
    assert len(record.games) == GAMES, "the match must play every game"
    first = record.games[0]
    bad_seat = first.seating.index(0)
    assert first.statuses[bad_seat] is status
    assert [fault.status for fault in first.faults] == [status]
    assert first.faults[0].agent == 0
    # The faulty seat forfeits: last place, and the other seats keep the order the rules gave them.
    result, engine_result = first.result, first.engine_result
    assert result is not None and engine_result is not None
    others = [seat for seat in range(3) if seat != bad_seat]
    assert all(result.ranks[bad_seat] > result.ranks[seat] for seat in others)
    engine_order = sorted(others, key=lambda seat: engine_result.ranks[seat])
    result_order = sorted(others, key=lambda seat: result.ranks[seat])
    assert engine_order == result_order
    # The well-behaved seats stay ok in every game.
    for game in record.games:
        for seat, agent in enumerate(game.seating):
            if agent != 0:
                assert game.statuses[seat] is Status.OK
    assert log_text in record.logs[0]
    if bot in ("raiser.py", "exiter.py"):
        assert "Traceback (most recent call last):" in record.logs[0]


def test_a_crash_forfeits_the_rest_of_the_match_but_a_single_fault_does_not() -> None:
    crashed = play([str(BOTS / "exiter.py"), "builtin:random"])
    assert [game.statuses[game.seating.index(0)] for game in crashed.games] == [Status.CRASH] * GAMES
    raised = play([str(BOTS / "raiser.py"), "builtin:random"])
    assert [game.statuses[game.seating.index(0)] for game in raised.games] == [
        Status.CRASH,
        Status.OK,
        Status.OK,
    ]


def test_repeated_faults_forfeit_the_match() -> None:
    # The sleeper's 1.5 s nap overruns a 50 ms clock with no bank, and it keeps missing deadlines
    # while it sleeps: the third fault ends its match, and it forfeits every later game.
    record = play(
        [str(BOTS / "sleeper.py"), "builtin:random"], games=5, limits=Limits(decision_ms=50, bank_ms=0)
    )
    assert sum(len(game.faults) for game in record.games) == 3
    assert [game.statuses[game.seating.index(0)] for game in record.games] == [Status.TIMEOUT] * 5
    assert len(record.games) == 5


def test_one_process_per_seat_for_the_whole_match(tmp_path: Path) -> None:
    bot = tmp_path / "pid_writer.py"
    shutil.copy(BOTS / "pid_writer.py", bot)
    games = 6
    record = play([str(bot)] * 3, games=games)
    assert len(record.games) == games
    pids = list((tmp_path / "pids").iterdir())
    assert len(pids) == 3
    for pid_file in pids:
        assert pid_file.read_text().split() == [str(index) for index in range(games)]


def test_a_bot_done_with_its_stream_is_not_waited_for(tmp_path: Path) -> None:
    """Once a bot has closed its stream after MatchEnd, the match ends it rather than wait for its
    process to leave (an interpreter's teardown, or a bot that lingers); what it wrote before
    stays in its log."""
    bot = tmp_path / "lingerer.py"
    shutil.copy(BOTS / "lingerer.py", bot)
    record = play([str(bot), "builtin:random"], games=2)
    assert "lingerer: the match is over" in record.logs[0]
    time.sleep(1.5)
    assert not (tmp_path / "lingered").exists(), "the arena waited for the bot's process to exit"
