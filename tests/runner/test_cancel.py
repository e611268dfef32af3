"""A match cancelled at any step (Ctrl-C on ``arena play``, a worker stopping) leaves nothing
half-started behind: every call it made to an agent was either run or never made."""

from __future__ import annotations

import asyncio
import gc
import warnings

from arena.bots import load_bot
from arena.games.edible import Edible, EdibleConfig
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner

STEPS = 40
"""Turns of the event loop the match gets before it is cancelled: its start, its first game's
start and decisions, its end."""


async def cancelled_after(steps: int) -> None:
    agents = [InProcessAgent(load_bot("edible", f"builtin:{name}")) for name in ("random", "heuristic")]
    match = asyncio.ensure_future(MatchRunner(Edible(), EdibleConfig(), agents, games=1, seed=3).run())
    for _ in range(steps):
        await asyncio.sleep(0)
    match.cancel()
    await asyncio.gather(match, return_exceptions=True)


def test_a_match_cancelled_at_any_step_leaves_no_call_to_an_agent_half_made() -> None:
    # A call to an agent made as a coroutine and handed to a task that the cancellation caught
    # before its first step was never run: Python warned of it ("coroutine 'ProcessAgent.
    # start_match' was never awaited") after `arena play`'s last line on a Ctrl-C.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for steps in range(1, STEPS):
            asyncio.run(cancelled_after(steps))
            gc.collect()
    assert [str(warning.message) for warning in caught] == []
