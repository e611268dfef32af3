"""The human seat in the runner (``arena.runner.human``), without a browser: a person answers
through the table on their own clock while the bots keep the arena's, and a person whose page is
gone times out and the match still ends."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from typing import Any

from arena.bots import load_bot
from arena.games.registry import get_game
from arena.runner.human import HumanAgent, SeatedRunner, Table
from arena.runner.inprocess import InProcessAgent
from arena.runner.terms import Limits, Reply, Status


class Clocked(InProcessAgent):
    """A bot that notes the clock of every decision it is asked."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.clocks: set[tuple[int, int]] = set()

    async def decide(
        self, decision_id: int, observation: Any, legal: Sequence[Any], decision_ms: int, bank_ms: int
    ) -> Reply:
        self.clocks.add((decision_ms, bank_ms))
        return await super().decide(decision_id, observation, legal, decision_ms, bank_ms)


class ClockedPerson(HumanAgent):
    """A person's seat that notes the clock of every decision it is asked."""

    clocks: set[tuple[int, int]]

    async def decide(
        self, decision_id: int, observation: Any, legal: Sequence[Any], decision_ms: int, bank_ms: int
    ) -> Reply:
        self.clocks.add((decision_ms, bank_ms))
        return await super().decide(decision_id, observation, legal, decision_ms, bank_ms)


def test_a_person_on_their_own_clock_against_a_bot_on_the_arenas() -> None:
    game = get_game("edible")
    table = Table()
    table.open_stream()
    person = ClockedPerson("person", table, Limits(decision_ms=30_000, bank_ms=0))
    person.clocks = set()
    bot = Clocked(load_bot("edible", "builtin:random"), "random")
    done = threading.Event()

    def answer() -> None:  # the first legal move, each time one is asked
        while not done.is_set():
            _, view = table.snapshot()
            if view.turn is not None and not view.turn.answer.done():
                assert table.answer(game, view.turn.number, view.turn.legal[0]) is None
            time.sleep(0.001)

    thread = threading.Thread(target=answer)
    thread.start()
    try:
        record = asyncio.run(SeatedRunner(game, game.config_type(), [person, bot], games=1, seed=3).run())
    finally:
        done.set()
        thread.join()
    assert record.games[0].statuses == [Status.OK, Status.OK]
    assert person.clocks == {(30_000, 0)}
    assert bot.clocks == {(Limits().decision_ms, Limits().bank_ms)}
    _, view = table.snapshot()
    assert view.result == record.games[0].result and view.observation.to_act == -1  # the end shown


def test_a_person_whose_page_is_gone_times_out_and_the_match_ends() -> None:
    game = get_game("edible")
    person = HumanAgent("person", Table(leave_s=0.2))  # no page ever connects
    bots = [InProcessAgent(load_bot("edible", "builtin:random"), "random") for _ in range(2)]
    record = asyncio.run(SeatedRunner(game, game.config_type(), [person, *bots], games=1, seed=5).run())
    played = record.games[0]
    assert played.statuses[played.seating.index(0)] == Status.TIMEOUT
    (fault,) = [fault for fault in played.faults if fault.agent == 0]
    assert fault.detail.startswith("the player left the table (no page connected for")
    assert played.result is not None and played.result.ranks[played.seating.index(0)] == 2  # forfeited
