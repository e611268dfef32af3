"""Running the checks: one bot process, over the real transport and sandbox, asked in every pinned
situation of its game.

Each situation is a game of its own for the bot: it is told the game starts, asked at the pinned
decision (for the fault check, at its next decisions too), and told how the game ended. The game
itself is played by the seeded random playout whatever the bot answers, so every check meets the
same states; the bot's answers are judged as a match judges them (in time, well formed, legal).
The bot process plays every game of one seat count as one match (a *leg*, as in a match with
duplicate deals); a process that is gone is replaced by a fresh one for the leg's other games. Its
own seed is drawn afresh, as a match's is (it was a fixed one that told the bot it was checked);
the checks stay plain checks otherwise (the bot joins each game at its pinned decision, and the
playout goes on whatever it answers), and the validation match after them is a rated ladder's.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from arena import loop
from arena.checks.pins import Pin, pins_of
from arena.checks.situations import DEADLINE, FAULT, FAULT_FOLLOWUPS, playout
from arena.games.base import Game, GameState, IllegalAction
from arena.games.registry import get_game
from arena.runner.deals import derive_seed, new_seed
from arena.runner.match import MatchRunner
from arena.runner.terms import DECISION_GRACE_MS, Limits, MatchSetup, Reply, Status
from arena.sandbox.base import BotProgram, Sandbox
from arena.transport.process import ProcessAgent
from arena.transport.server import ArenaServer

DEADLINE_MS = Limits().decision_ms
"""The clock of the deadline check's decision, with no bank behind it: a match's decision clock
once the bank is spent. Not shorter: validation runs while the machine plays matches, and a bot
must not fail it for the machine's load."""
FAULT_DETAIL = "refused on purpose by the bot check: a bot must play on after a fault"
LIMITS = Limits()
"""Every other decision's clocks: a match's defaults."""
T = TypeVar("T")


@dataclass(frozen=True)
class CheckResult:
    situation: str
    passed: bool
    detail: str
    """Why it failed: the decision, and the arena's fault; empty when it passed."""


@dataclass
class CheckReport:
    game: str
    results: list[CheckResult] = field(default_factory=list)
    log: str = ""
    """The bot's log (stderr, capped, with its last traceback)."""
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return all(result.passed for result in self.results)

    def lines(self) -> list[str]:
        """One line per situation, then a summary."""
        lines = [
            f"{'pass' if result.passed else 'FAIL'}  {self.game}: {result.situation}"
            + (f": {result.detail}" if result.detail else "")
            for result in self.results
        ]
        failed = sum(not result.passed for result in self.results)
        verdict = "all passed" if not failed else f"{failed} failed"
        lines.append(f"{self.game}: {len(self.results)} situations, {verdict} ({self.seconds:.1f} s)")
        return lines


def run_checks(program: BotProgram, game: str, sandbox: Sandbox) -> CheckReport:
    """Check ``program`` in every pinned situation of ``game``, running it in ``sandbox``."""
    return loop.run(check_bot(program, game, sandbox))


async def check_bot(program: BotProgram, game_name: str, sandbox: Sandbox) -> CheckReport:
    game = get_game(game_name)
    started = time.perf_counter()
    pins = pins_of(game)
    legs: dict[int, list[Pin]] = {}
    for pin in pins:
        legs.setdefault(pin.seats, []).append(pin)
    found: dict[str, CheckResult] = {}
    async with ArenaServer() as server:
        checker = _Checker(game, ProcessAgent(server, sandbox, program, "checked bot"))
        try:
            for seats, leg in legs.items():
                await checker.play_leg(seats, leg, found)
        finally:
            await checker.close()
    report = CheckReport(game.name, [found[pin.situation] for pin in pins], checker.agent.log_text())
    report.seconds = time.perf_counter() - started
    return report


class _Checker:
    def __init__(self, game: Game[Any, Any, Any], agent: ProcessAgent) -> None:
        self.game = game
        self.agent = agent
        self.gone = True
        """No process is playing (none started yet, or the last one is gone)."""
        self.running = False
        """A process was started and is not closed yet."""
        self.unstartable = ""
        """Why the bot could not be started: then it is not tried again."""
        self.decision_id = 0
        self.bank_ms = float(LIMITS.bank_ms)

    async def play_leg(self, seats: int, pins: list[Pin], found: dict[str, CheckResult]) -> None:
        for number, pin in enumerate(pins):
            if self.gone and not self.unstartable:
                await self._start(seats, len(pins) - number)
            if self.unstartable:
                found[pin.situation] = CheckResult(pin.situation, False, self.unstartable)
                continue
            found[pin.situation] = await self._play(pin, number)
            if self.gone:
                await self.close()
        if not self.gone:
            await self._bounded(self.agent.end_match([0.0] * seats, ""), LIMITS.message_ms)
            self.gone = True
        await self.close()

    async def close(self) -> None:
        """Release the bot's process, once (its process id is not ours to signal again)."""
        if self.running:
            self.running = False
            await self.agent.close()

    async def _start(self, seats: int, games: int) -> None:
        setup = MatchSetup(
            match_id=secrets.token_hex(6),
            game=self.game,
            config=self.game.config_type(),
            names=tuple(f"seat {seat}" for seat in range(seats)),
            games=games,
            limits=LIMITS,
            bot_seeds=(derive_seed(new_seed(), "bot", bits=63),),
        )
        self.decision_id, self.bank_ms = 0, float(LIMITS.bank_ms)
        self.running = True
        reply = await self._bounded(self.agent.start_match(setup, 0), LIMITS.startup_ms + DECISION_GRACE_MS)
        if reply is None or reply.status is not Status.OK:
            detail = reply.detail if reply is not None else "did not start in time"
            self.unstartable = f"the bot did not start: {reply.status if reply else Status.TIMEOUT}: {detail}"
            await self.close()
            return
        self.gone = False

    async def _bounded(self, call: Awaitable[T], ms: float) -> T | None:
        """``call``'s result, or ``None`` (and the bot cut off) if it took over ``ms``."""
        try:
            async with asyncio.timeout(ms / 1000):
                return await call
        except TimeoutError:
            self.gone = True
            return None

    async def _play(self, pin: Pin, number: int) -> CheckResult:
        """Play the pin's game with the bot at the checked seat: its verdict."""
        agent = self.agent
        seat: int | None = None
        asks = 1 + (FAULT_FOLLOWUPS if pin.situation == FAULT else 0)
        failure = ""
        status = Status.OK
        state: GameState[Any, Any] | None = None
        for index, state in playout(self.game, pin.seats, pin.seed):
            to_act = state.to_act()
            if index == pin.decision:
                seat = to_act
                assert seat is not None
                await self._bounded(agent.start_game(number, seat), LIMITS.message_ms)
            if seat is None or to_act != seat or asks == 0 or self.gone or failure:
                continue
            asks -= 1
            deadline = pin.situation == DEADLINE
            reply = await self._ask(state, seat, DEADLINE_MS if deadline else LIMITS.decision_ms, deadline)
            if reply.status is not Status.OK:
                after = "after the fault, " if index > pin.decision else ""
                where = f"seed {pin.seed}, {pin.seats} seats, decision {index} (seat {seat})"
                failure = f"{after}{where}: {reply.status}: {reply.detail}"
                status = reply.status
                self.gone = self.gone or reply.gone
                if not self.gone:
                    await self._bounded(
                        agent.fault(self.decision_id, status, reply.detail), LIMITS.message_ms
                    )
            elif pin.situation == FAULT and index == pin.decision:
                await self._bounded(
                    agent.fault(self.decision_id, Status.ILLEGAL_ACTION, FAULT_DETAIL), LIMITS.message_ms
                )
        if seat is not None and state is not None and not self.gone:
            statuses = [str(status if other == seat else Status.OK) for other in range(pin.seats)]
            await self._bounded(agent.end_game(number, state.result(), statuses), LIMITS.message_ms)
        if seat is None:
            failure = f"seed {pin.seed}'s game no longer reaches decision {pin.decision} (a stale pin)"
        elif asks and not failure:
            failure = "the bot was cut off before its decision (it stopped taking the arena's messages)"
        return CheckResult(pin.situation, not failure, failure)

    async def _ask(self, state: GameState[Any, Any], seat: int, decision_ms: int, no_bank: bool) -> Reply:
        """One decision, judged as a match judges it."""
        self.decision_id += 1
        bank = 0.0 if no_bank else self.bank_ms
        legal = state.legal_actions()
        started = time.perf_counter()
        asked = self.agent.decide(self.decision_id, state.observation(seat), legal, decision_ms, int(bank))
        reply = await self._bounded(asked, decision_ms + bank + DECISION_GRACE_MS)
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        if reply is None:
            return Reply(
                status=Status.TIMEOUT, detail=f"no answer within {elapsed_ms:.0f} ms: cut off", gone=True
            )
        if not no_bank:
            self.bank_ms = max(0.0, bank - max(0.0, elapsed_ms - decision_ms))
        if reply.status is not Status.OK:
            return reply
        if elapsed_ms > decision_ms + bank:
            return Reply(status=Status.TIMEOUT, detail=f"answered after {elapsed_ms:.0f} ms")
        return _judged(state, reply.action, legal, self.game.lists_all_actions)


def _judged(state: GameState[Any, Any], action: Any, legal: Sequence[Any], listed_all: bool) -> Reply:
    try:
        MatchRunner._check_legal(state, action, legal, listed_all)
    except IllegalAction as error:
        return Reply(status=Status.ILLEGAL_ACTION, detail=f"{action!r}: {error}")
    return Reply(action=action)
