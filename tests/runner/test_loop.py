"""Matches run on uvloop's event loop, on the arena's side and in a Python bot's SDK alike."""

from __future__ import annotations

import asyncio
from pathlib import Path

import uvloop

from arena import loop
from arena.games.edible import Edible, EdibleConfig
from arena.sandbox import NoSandbox
from arena.transport.process import play_match

BOTS = Path(__file__).resolve().parents[1] / "bots"


async def _loop_type() -> type[asyncio.AbstractEventLoop]:
    return type(asyncio.get_running_loop())


def test_the_arena_runs_on_uvloop() -> None:
    assert loop.run(_loop_type()) is uvloop.Loop


def test_a_python_bot_runs_on_uvloop() -> None:
    record = loop.run(
        play_match(
            Edible(),
            EdibleConfig(),
            [str(BOTS / "loop_teller.py"), "builtin:random"],
            NoSandbox(),
            games=1,
            seed=1,
        )
    )
    assert "loop-teller: uvloop.Loop" in record.logs[0]
    assert record.games and not record.games[0].faults


def _descriptors() -> dict[str, str]:
    folder = Path("/proc/self/fd")
    found = {}
    for entry in folder.iterdir():
        try:
            found[entry.name] = str(entry.readlink())
        except OSError:
            continue  # the listing's own descriptor, closed by now
    return found


async def _descriptors_left_by_a_match() -> dict[str, str]:
    before = _descriptors()
    record = await play_match(
        Edible(), EdibleConfig(), [str(BOTS / "loop_teller.py")] * 2, NoSandbox(), games=1, seed=1
    )
    assert all("loop-teller: uvloop.Loop" in log for log in record.logs)  # their stderr, read whole
    after = _descriptors()
    return {number: target for number, target in after.items() if before.get(number) != target}


def test_a_match_closes_every_descriptor_it_opened_before_its_loop_ends() -> None:
    """The bots' stderr pipes included: left to the loop's end, uvloop closed each twice (its
    handle's descriptor, then the pipe's file object), and the second close took whatever another
    thread had opened under that number meanwhile (a prepared sandbox's pipe, in a long run)."""
    loop.run(_descriptors_left_by_a_match())  # grpc's own, opened once per process, now open
    assert loop.run(_descriptors_left_by_a_match()) == {}


class _Costly:
    """A result whose ``repr`` is counted: a match's record takes milliseconds to format."""

    formatted = 0

    def __repr__(self) -> str:
        _Costly.formatted += 1
        return "costly"


async def _costly() -> _Costly:
    return _Costly()


def test_a_runs_result_is_returned_and_never_formatted() -> None:
    """On the main thread, asyncio's runner restores Ctrl-C's handler at the end, and Python's
    signal module formatted the handler it replaced (the main task, its result within) twice."""
    _Costly.formatted = 0
    result = loop.run(_costly())
    assert isinstance(result, _Costly)
    assert _Costly.formatted == 0
