"""A person at the table: the human seat, an agent of the runner like any other.

A ``HumanAgent`` answers the runner's decisions with what a person chose on a page, through a
``Table`` that the page and the match share across threads (the match plays on a thread of its own,
the page is served by the web app's event loop). The table holds what the seat may see (its
observation, never more), the decision it is asked with its legal actions and deadline, and
whether a page is connected to it. A person who does not answer in time, or whose page has been
gone for ``leave_s``, gets the runner's ``timeout`` status like any bot; a move that is the only
legal one (in a game that lists them all) is made without asking. ``SeatedRunner`` is the
match runner for a match with people at it: their own clock (``HUMAN_LIMITS``, a minute a decision
with no bank), and their seat's observation shown before every decision of the game, anyone's.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena.games.base import Game, GameResult, GameState
from arena.runner import replay
from arena.runner.logs import CappedLog
from arena.runner.match import MatchRunner, ProgressCallback, match_bound_s
from arena.runner.records import GameRecord, MatchRecord
from arena.runner.terms import Agent, Limits, MatchSetup, Reply, Status

HUMAN_LIMITS = Limits(decision_ms=60_000, bank_ms=0)
"""A person's clock: a minute a decision, no bank."""
LEAVE_S = 15.0
"""How long a seat's page may be gone (closed, or its connection lost) before the seat times out."""
POLL_S = 0.2
"""How often a waiting decision looks whether its page is still there."""


def why_illegal(game: Game[Any, Any, Any], observation: Any, legal: Sequence[Any], action: Any) -> str | None:
    """Why the observing seat may not play ``action`` now (``None``: it may), judged as the runner
    judges it, from what the seat sees."""
    if action in legal:
        return None
    return game.unlisted_error(observation, action)


@dataclass(frozen=True)
class Turn:
    """A decision asked of the person."""

    number: int
    observation: Any
    legal: tuple[Any, ...]
    deadline: float
    """``time.monotonic()`` at which the seat times out."""
    answer: concurrent.futures.Future[Any] = field(compare=False)


@dataclass(frozen=True)
class View:
    """What the seat's page shows: nothing its seat may not see."""

    game: str = ""
    seat: int = -1
    game_index: int = 0
    observation: Any = None
    turn: Turn | None = None
    result: GameResult | None = None
    statuses: tuple[str, ...] = ()
    note: str = ""
    """The last thing the arena told the seat (a fault)."""
    over: bool = False
    """The match is over (and recorded, or failed: ``note`` says)."""


Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]


def _wake(waiters: list[Waiter]) -> None:
    """Set each waiter's event, on its own loop's thread."""
    for loop, event in waiters:
        loop.call_soon_threadsafe(event.set)


class Table:
    """A seat's view and its pending decision, shared by the match's thread and the page's; a page
    waits for changes (``changed``) and answers (``answer``)."""

    def __init__(self, leave_s: float = LEAVE_S) -> None:
        self.leave_s = leave_s
        self._lock = threading.Lock()
        self._seq = 0
        self._view = View()
        self._waiters: set[Waiter] = set()
        self._streams = 0
        self._stream_id = 0
        self._gone_since: float | None = time.monotonic()

    def snapshot(self) -> tuple[int, View]:
        with self._lock:
            return self._seq, self._view

    def show(self, **changes: Any) -> None:
        """Change what the page shows, and wake every page waiting for a change."""
        with self._lock:
            self._view = replace(self._view, **changes)
            self._seq += 1
            waiters = list(self._waiters)
        _wake(waiters)

    async def changed(self, seq: int, timeout: float) -> None:
        """Return once the view has changed since ``seq``, or after ``timeout`` seconds."""
        waiter: Waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            if self._seq != seq:
                return
            self._waiters.add(waiter)
        try:
            async with asyncio.timeout(timeout):
                await waiter[1].wait()
        except TimeoutError:
            pass
        finally:
            with self._lock:
                self._waiters.discard(waiter)

    def open_stream(self) -> int:
        """A page connects: its number. The newest page is the seat's (``current``): the others
        are woken, to find they are not."""
        with self._lock:
            self._streams += 1
            self._stream_id += 1
            self._gone_since = None
            waiters = list(self._waiters)
            stream = self._stream_id
        _wake(waiters)
        return stream

    def current(self, stream: int) -> bool:
        with self._lock:
            return stream == self._stream_id

    def close_stream(self) -> None:
        with self._lock:
            self._streams -= 1
            if self._streams == 0:
                self._gone_since = time.monotonic()

    def gone_for(self) -> float:
        """How long no page has been connected (0 while one is)."""
        with self._lock:
            return 0.0 if self._gone_since is None else time.monotonic() - self._gone_since

    def answer(self, game: Game[Any, Any, Any], number: int, action: Any) -> str | None:
        """The person's answer to decision ``number``: why it is refused, or ``None`` once taken."""
        with self._lock:
            turn = self._view.turn
            if turn is None or turn.number != number or turn.answer.done():
                return f"decision {number} is not being asked (now: {turn.number if turn else 'none'})"
            why = why_illegal(game, turn.observation, turn.legal, action)
            if why is None:
                turn.answer.set_result(action)
            return why


class HumanAgent(Agent):
    """The seat of a person, who answers on a page through ``table``, on ``limits``' clock."""

    def __init__(self, name: str, table: Table, limits: Limits = HUMAN_LIMITS) -> None:
        self.name, self.table, self.limits = name, table, limits
        self.seat = -1
        self.lists_all = False
        self.log = CappedLog()

    async def start_match(self, setup: MatchSetup, agent_index: int) -> Reply:
        self.lists_all = setup.game.lists_all_actions
        self.table.show(game=setup.game.name)
        return Reply()

    async def start_game(self, game_index: int, seat: int) -> None:
        self.seat = seat
        self.table.show(seat=seat, game_index=game_index, result=None, statuses=())

    def see(self, state: GameState[Any, Any]) -> None:
        """Show the seat's observation of ``state``."""
        if self.seat >= 0:
            self.table.show(observation=state.observation(self.seat))

    async def decide(
        self, decision_id: int, observation: Any, legal: Sequence[Any], decision_ms: int, bank_ms: int
    ) -> Reply:
        if self.lists_all and len(legal) == 1:  # a forced move (a molodka question with only Decline)
            return Reply(action=legal[0])
        started = time.monotonic()
        turn = Turn(
            decision_id,
            observation,
            tuple(legal),
            started + (decision_ms + bank_ms) / 1000,
            concurrent.futures.Future(),
        )
        self.table.show(observation=observation, turn=turn, note="")
        answer = asyncio.wrap_future(turn.answer)
        try:
            while True:
                left = turn.deadline - time.monotonic()
                gone = self.table.gone_for()
                if gone >= self.table.leave_s:
                    detail = f"the player left the table (no page connected for {gone:.0f} s)"
                    self.log.write(f"arena: decision {decision_id}: {detail}\n")
                    return Reply(status=Status.TIMEOUT, detail=detail, gone=True)
                if left <= 0:
                    return Reply(status=Status.TIMEOUT, detail=f"no answer within {decision_ms + bank_ms} ms")
                done, _ = await asyncio.wait({answer}, timeout=min(POLL_S, left))
                if done:
                    return Reply(action=answer.result())
        finally:
            answer.cancel()
            self.table.show(turn=None)

    async def fault(self, decision_id: int, status: Status, detail: str) -> None:
        self.log.write(f"arena: decision {decision_id}: {status}: {detail}\n")
        self.table.show(note=f"{status}: {detail}")

    async def end_game(self, game_index: int, result: GameResult, statuses: Sequence[str]) -> None:
        self.table.show(result=result, statuses=tuple(statuses))

    async def end_match(self, totals: Sequence[float], detail: str) -> None:
        return None

    async def close(self) -> None:
        return None

    def log_text(self) -> str:
        return self.log.text()


class SeatedRunner(MatchRunner):
    """The runner of a match with people at it: each ``HumanAgent`` decides on its own clock and
    sees its seat's observation before every decision of the game, and once the game is over."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.people = {
            index: agent for index, agent in enumerate(self.agents) if isinstance(agent, HumanAgent)
        }

    def bound_s(self) -> float:
        bounds = [super().bound_s()]
        for person in self.people.values():
            bounds.append(
                match_bound_s(self.config, len(self.agents), self.games, self.record.duplicate, person.limits)
            )
        return max(bounds)

    async def run(self, on_game: ProgressCallback | None = None) -> MatchRecord:
        def ended(record: MatchRecord, game: GameRecord) -> None:
            if self.people:
                # as a replay file has it (its tuples JSON's lists), which is what replay reads
                data = json.loads(json.dumps({**replay.header(record), "games": [replay.game_to_json(game)]}))
                final = deque(replay.play_through(data, 0), maxlen=1)[0]
                for person in self.people.values():
                    person.see(final)
            if on_game is not None:
                on_game(record, game)

        return await super().run(ended)

    async def _ask(
        self, state: GameState[Any, Any], seat: int, agent_index: int
    ) -> tuple[Any, float, Reply | None]:
        for someone in self.people.values():
            someone.see(state)
        person = self.people.get(agent_index)
        if person is None:
            return await super()._ask(state, seat, agent_index)
        limits, self.limits = self.limits, person.limits
        self.bank_ms[agent_index] = float(person.limits.bank_ms)
        try:
            return await super()._ask(state, seat, agent_index)
        finally:
            self.limits = limits
