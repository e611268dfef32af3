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
