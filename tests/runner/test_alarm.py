"""The decision clock's one re-armed timer: it rings at its latest deadline and never before, and
a decision past its clock is cut off with ``timeout`` exactly as a per-call timeout would."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import pytest

from arena import loop
from arena.bots import load_bot
from arena.games.edible import Edible, EdibleConfig
from arena.runner.alarm import Alarm
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner
from arena.runner.records import MatchRecord
from arena.runner.terms import Limits, Reply, Status

# Run alone, after the parallel tests (deploy/test.sh): clocks of a second or less.
pytestmark = pytest.mark.serial

TICK_S = 0.001
"""How early a timer may go off by the loop's own clock: uvloop's counts whole milliseconds."""


@pytest.fixture(params=[asyncio.run, loop.run], ids=["asyncio", "uvloop"])
def run(request: pytest.FixtureRequest) -> Callable[[Coroutine[Any, Any, Any]], Any]:
    """Runs a coroutine on asyncio's loop or on uvloop's, which matches run on (``arena.loop``)."""
    return request.param  # type: ignore[no-any-return]


def rings(
    run: Callable[[Coroutine[Any, Any, Any]], Any], moves: Sequence[float | None], wait_s: float
) -> tuple[list[float], list[float]]:
    """Set (a number of seconds) or clear (``None``) an alarm in turn, then wait: the deadlines set
    and the loop's times at which it rang."""

    async def scenario() -> tuple[list[float], list[float]]:
        loop = asyncio.get_running_loop()
        rang: list[float] = []
        deadlines: list[float] = []
        alarm = Alarm(lambda: rang.append(loop.time()))
        for move in moves:
            if move is None:
                alarm.clear()
            else:
                deadlines.append(loop.time() + move)
                alarm.set(move)
        await asyncio.sleep(wait_s)
        alarm.close()
        return deadlines, rang

    return run(scenario())  # type: ignore[no-any-return]


def test_a_deadline_moved_later_rings_once_at_the_later_deadline(run: Any) -> None:
    deadlines, rang = rings(run, [0.01, 0.05], wait_s=0.1)
    assert len(rang) == 1
    assert rang[0] >= deadlines[-1] - TICK_S


def test_a_deadline_moved_a_hair_later_still_rings(run: Any) -> None:
    """Re-armed a fraction of a millisecond before the new deadline, the timer is due at once
    (uvloop then hands back a plain handle, not a timer)."""
    deadlines, rang = rings(run, [0.01, 0.0102], wait_s=0.05)
    assert len(rang) == 1 and rang[0] >= deadlines[-1] - TICK_S


def test_a_deadline_moved_earlier_rings_once_at_the_earlier_deadline(run: Any) -> None:
    deadlines, rang = rings(run, [0.2, 0.01], wait_s=0.3)
    assert len(rang) == 1
    assert deadlines[-1] - TICK_S <= rang[0] < deadlines[0]


def test_a_cleared_alarm_stays_silent_until_set_again(run: Any) -> None:
    assert rings(run, [0.01, None], wait_s=0.05)[1] == []
    deadlines, rang = rings(run, [0.01, None, 0.02], wait_s=0.05)
    assert len(rang) == 1 and rang[0] >= deadlines[-1] - TICK_S


LIMITS = Limits(decision_ms=1000, bank_ms=0)
"""The honest agent's random moves take well under a millisecond; a second leaves room for a loaded
machine (at 200 ms it was cut off once in CI), and only the hanging agent reaches it."""
HANG_AT = 3
"""The decision (of the match) at which the test agents stop answering."""


class Hanging(InProcessAgent):
    """Plays at random, and at its ``HANG_AT``-th decision waits forever (or, if ``answers``, is cut
    off and answers anyway; if ``cancels``, is cut off while its match is cancelled too)."""

    def __init__(self, answers: bool = False, cancels: bool = False) -> None:
        super().__init__(load_bot("edible", "builtin:random"), "hanging")
        self.answers, self.cancels = answers, cancels

    async def decide(
        self, decision_id: int, observation: Any, legal: Sequence[Any], decision_ms: int, bank_ms: int
    ) -> Reply:
        if decision_id != HANG_AT:
            return await super().decide(decision_id, observation, legal, decision_ms, bank_ms)
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            if self.cancels:
                task = asyncio.current_task()
                assert task is not None
                task.cancel()
                raise
            if not self.answers:
                raise
        return Reply(action=legal[0])


def play(run: Callable[[Coroutine[Any, Any, Any]], Any], agent: Hanging) -> MatchRecord:
    agents = [agent, InProcessAgent(load_bot("edible", "builtin:random"), "random")]
    runner = MatchRunner(Edible(), EdibleConfig(), agents, games=3, seed=7, limits=LIMITS)
    return run(runner.run())  # type: ignore[no-any-return]


def test_a_decision_past_its_clock_and_grace_is_cut_off_with_timeout(run: Any) -> None:
    record = play(run, Hanging())
    faults = [fault for game in record.games for fault in game.faults]
    assert [(fault.agent, fault.status) for fault in faults] == [(0, Status.TIMEOUT)]
    assert faults[0].detail.startswith("no answer within")
    # Cut off for the rest of the match; the match goes on, every game played.
    assert len(record.games) == 3
    assert all(game.statuses[game.seating.index(0)] is Status.TIMEOUT for game in record.games)


def test_an_answer_that_comes_anyway_after_the_cut_off_is_late(run: Any) -> None:
    record = play(run, Hanging(answers=True))
    faults = [fault for game in record.games for fault in game.faults]
    assert [(fault.agent, fault.status) for fault in faults] == [(0, Status.TIMEOUT)]
    assert faults[0].detail.startswith("answered after")
    # Late, not gone: the agent plays the next games.
    assert record.games[-1].statuses[record.games[-1].seating.index(0)] is Status.OK


def test_a_cancellation_from_outside_during_the_cut_off_is_not_swallowed(run: Any) -> None:
    with pytest.raises(asyncio.CancelledError):
        play(run, Hanging(cancels=True))
