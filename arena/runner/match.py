"""The match runner: plays a series of games on the same bots and owns clocks and statuses.

A match is ``(game id and version, config, seed, number of games, seat rotation)`` plus one agent per
seat; each game is seeded from the match seed, so any game replays alone. The runner asks agents for
decisions through the ``Agent`` interface (``arena.runner.terms``), enforces the per-decision deadline
and the per-match time bank, records a status for every fault and applies the fault policy (a faulty
seat forfeits the game; after ``max_faults`` faults, or on a crash, every remaining game). A bot
learns only what its seat's observations show: seeds are one-way, duplicate deals are played in legs
by fresh processes, and every id a bot is sent is its own. What a match leaves is its
``MatchRecord``; given a ``sink``, each game goes to it as it ends.

Why, in full: docs/matches.md.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any, TypeVar

from arena.games.base import Game, GameConfig, GameResult, GameState, IllegalAction, ranks_from_keys
from arena.runner.alarm import Alarm
from arena.runner.deals import carried_dealer, derive_seed, game_seed, legs, previous_game, seating_for
from arena.runner.records import FAULT_DETAIL_BYTES, FaultRecord, GameRecord, GameSink, MatchRecord
from arena.runner.terms import (
    DECISION_GRACE_MS,
    Agent,
    FaultPolicy,
    Limits,
    MatchSetup,
    Reply,
    Status,
)
from arena.text import clip

T = TypeVar("T")


def forfeit_result(game: Game[Any, Any, Any], result: GameResult, forfeited: Sequence[int]) -> GameResult:
    """The result with forfeiting seats placed last (tied) and the others in the order the rules
    gave them; every seat's score then follows from these ranks by the game's one scoring rule
    (``Game.scores_for``), so a seat lifted by another's forfeit scores as its new place does."""
    if not forfeited:
        return result
    keys = [(0, 0) if seat in forfeited else (1, -rank) for seat, rank in enumerate(result.ranks)]
    ranks = ranks_from_keys(keys)
    detail = {**result.detail, "forfeited": sorted(forfeited)}
    return GameResult(ranks, game.scores_for(ranks, detail), detail)


def match_bound_s(config: GameConfig, agents: int, games: int, duplicate: bool, limits: Limits) -> float:
    """The longest a match of ``games`` games on ``agents`` agents can take (``Limits.match_bound_s``)."""
    cap = int(getattr(config, "action_cap", 1000))
    return limits.match_bound_s(games, len(legs(games, agents, duplicate)), agents, cap)


ProgressCallback = Callable[[MatchRecord, GameRecord], None]


class MatchRunner:
    """Plays one match on a list of agents (agent i starts at seat i).

    ``bot_seeds`` are the agents' own seeds; by default each leg derives them from the match seed
    (one-way, so they tell nothing of any deal). ``sink`` takes each game as it ends (after
    ``on_game``), and the record keeps only its summary (``GameRecord.shed_detail``); an exception
    the sink raises ends the match (its bots closed) and reaches the caller."""

    def __init__(
        self,
        game: Game[Any, Any, Any],
        config: GameConfig,
        agents: Sequence[Agent],
        *,
        games: int,
        seed: int,
        specs: Sequence[str] | None = None,
        limits: Limits | None = None,
        policy: FaultPolicy | None = None,
        rotate: bool = True,
        duplicate: bool = False,
        match_id: str | None = None,
        bot_seeds: Sequence[int] | None = None,
        sink: GameSink | None = None,
    ) -> None:
        game.check_seats(len(agents))
        self.sink = sink
        self.game, self.config, self.agents = game, config, list(agents)
        self.limits = limits or Limits()
        self.policy = policy or FaultPolicy()
        self.record = MatchRecord(
            match_id=match_id or uuid.uuid4().hex[:12],
            game=game,
            config=config,
            seed=seed,
            names=tuple(agent.name for agent in agents),
            specs=tuple(specs or [agent.name for agent in agents]),
            limits=self.limits,
            policy=self.policy,
            rotate=rotate or duplicate,
            duplicate=duplicate,
        )
        self.games = games
        self.bot_seeds = tuple(bot_seeds) if bot_seeds is not None else None
        self.faults = [0] * len(agents)
        self.out_of_match: list[Status | None] = [None] * len(agents)
        """The status that put each agent out of the match, if one did."""
        self.bank_ms: list[float] = []
        self.decision_ids: list[int] = []
        self.leg_games: dict[int, int] = {}
        """Each game's index within its leg: the index its agents are told."""
        self._task: asyncio.Task[Any] | None = None
        self._alarm: Alarm | None = None
        """Bounds every decision (``_ask``), cutting the agent off as ``_bounded`` would."""
        self._cut_off: int | None = None
        """Set when the alarm rings: the task's cancellation requests before it cancelled the task."""

    def bound_s(self) -> float:
        """The hard wall-clock bound of this match (``match_bound_s``)."""
        return match_bound_s(self.config, len(self.agents), self.games, self.record.duplicate, self.limits)

    async def run(self, on_game: ProgressCallback | None = None) -> MatchRecord:
        record = self.record
        record.started_at = time.time()
        started = time.perf_counter()
        self._task = asyncio.current_task()
        alarm = self._alarm = Alarm(self._cut_off_decision)
        try:
            # A backstop: every agent call has its own deadline, so this fires only if one escaped it.
            async with asyncio.timeout(self.bound_s()):
                for leg in legs(self.games, len(self.agents), record.duplicate):
                    await self._play_leg(leg, on_game)
        finally:
            alarm.close()
            record.games.sort(key=lambda game: game.index)
            record.duration_s = time.perf_counter() - started
            record.play_s = record.duration_s - record.startup_s
            record.logs = [agent.log_text() for agent in self.agents]
        return record

    async def _play_leg(self, games: list[int], on_game: ProgressCallback | None) -> None:
        """Start every agent still in the match, play ``games`` on them, and close them."""
        record = self.record
        started = time.perf_counter()
        agents = len(self.agents)
        self.bank_ms = [float(self.limits.bank_ms)] * agents
        self.decision_ids = [0] * agents
        self.leg_games = {game_index: number for number, game_index in enumerate(games)}
        leg = games[0]
        setup = MatchSetup(
            match_id=secrets.token_hex(6),
            game=self.game,
            config=self.config,
            names=tuple(f"seat {seat}" for seat in range(agents)),
            games=len(games),
            limits=self.limits,
            bot_seeds=self.bot_seeds
            or tuple(derive_seed(record.seed, "bot", leg, agent, bits=63) for agent in range(agents)),
        )
        playing = [index for index in range(agents) if self.out_of_match[index] is None]
        try:
            startup_s = (self.limits.startup_ms + DECISION_GRACE_MS) / 1000
            starts = await asyncio.gather(
                *(
                    self._bounded(index, partial(self.agents[index].start_match, setup, index), startup_s)
                    for index in playing
                )
            )
            for index, reply in zip(playing, starts, strict=True):
                if reply is not None and reply.status is not Status.OK:
                    self._out(index, reply.status)
            record.startup_s += time.perf_counter() - started
            for game_index in games:
                game_record = await self._play_game(game_index)
                record.games.append(game_record)
                if on_game is not None:
                    on_game(record, game_record)
                if self.sink is not None:
                    self.sink.add(record, game_record)
                    game_record.shed_detail()
            totals = [0.0] * agents
            for game_record in record.games:
                if game_record.index in self.leg_games:
                    assert game_record.result is not None
                    for seat, agent_index in enumerate(game_record.seating):
                        totals[agent_index] += game_record.result.scores[seat]
            await self._tell_all(lambda agent: agent.end_match(totals, ""))
        finally:
            # All at once: the bot processes exit, and their sandbox slots are freed, in parallel.
            closed = await asyncio.gather(
                *(self.agents[index].close() for index in playing), return_exceptions=True
            )
            for outcome in closed:
                if isinstance(outcome, BaseException):
                    raise outcome

    def _cut_off_decision(self) -> None:
        """The decision asked of an agent is past its clock and grace: it is cancelled (as
        ``_bounded``'s timeout would)."""
        assert self._task is not None
        self._cut_off = self._task.cancelling()
        self._task.cancel()

    def _withdraw_cut_off(self) -> bool:
        """Withdraw the alarm's cancellation, if it rang: whether none other is pending."""
        if self._cut_off is None:
            return False
        assert self._task is not None
        cancelling, self._cut_off = self._cut_off, None
        return self._task.uncancel() <= cancelling

    def _out(self, agent_index: int, status: Status) -> None:
        """Put an agent out of the match (its remaining games are forfeited)."""
        if self.out_of_match[agent_index] is None:
            self.out_of_match[agent_index] = status
            self.faults[agent_index] += 1

    async def _bounded(self, agent_index: int, call: Callable[[], Awaitable[T]], seconds: float) -> T | None:
        """``call()``'s result, or ``None`` if it took longer than ``seconds``: the agent is then
        cut off with ``timeout`` (whatever it does, it cannot hold the match up). The call is made
        here, not by the caller: a task that a cancellation catches before its first step never
        runs, and a call made ahead would be left half-made (its coroutine never awaited)."""
        try:
            async with asyncio.timeout(seconds):
                return await call()
        except TimeoutError:
            self._out(agent_index, Status.TIMEOUT)
            return None

    async def _tell_all(self, message: Callable[[Agent], Awaitable[None]]) -> None:
        """Send a message to every agent still in the match, all at once, each under its deadline."""
        seconds = self.limits.message_ms / 1000
        await asyncio.gather(
            *(
                self._bounded(index, partial(message, agent), seconds)
                for index, agent in enumerate(self.agents)
                if self.out_of_match[index] is None
            )
        )

    async def _play_game(self, game_index: int) -> GameRecord:
        seed = game_seed(self.record.seed, game_index, len(self.agents), self.record.duplicate)
        seating = seating_for(game_index, len(self.agents), self.record.rotate)
        record = GameRecord(index=game_index, seed=seed, seating=seating)
        rng = random.Random(seed)
        fallback_rng = random.Random(derive_seed(self.record.seed, "fallback", game_index))
        dealer = None
        if (before := previous_game(game_index, len(self.agents), self.record.duplicate)) is not None:
            prior = next(game for game in self.record.games if game.index == before)
            assert prior.result is not None
            dealer = carried_dealer(self.game, seating, prior.seating, prior.result)
        state: GameState[Any, Any] = self.game.new_state(self.config, len(self.agents), rng, dealer)
        number = self.leg_games[game_index]
        message_s = self.limits.message_ms / 1000
        forfeited: set[int] = set()
        statuses = [Status.OK] * len(self.agents)
        starting = []
        for seat, agent_index in enumerate(seating):
            if self.out_of_match[agent_index] is None:
                starting.append(
                    self._bounded(
                        agent_index, partial(self.agents[agent_index].start_game, number, seat), message_s
                    )
                )
        # Messages to different agents go out together, not one after another.
        await asyncio.gather(*starting)
        for seat, agent_index in enumerate(seating):
            out_status = self.out_of_match[agent_index]
            if out_status is not None:
                forfeited.add(seat)
                statuses[seat] = out_status
        while (to_act := state.to_act()) is not None:
            seat = to_act
            agent_index = seating[seat]
            elapsed_ms = 0.0
            if seat in forfeited:
                action = state.random_action(fallback_rng)
                record.fallback.append(len(record.actions))
            else:
                action, elapsed_ms, fault = await self._ask(state, seat, agent_index)
                if fault is not None:
                    status, detail = fault.status, clip(fault.detail, FAULT_DETAIL_BYTES)
                    record.faults.append(
                        FaultRecord(game_index, len(record.actions), seat, agent_index, status, detail)
                    )
                    statuses[seat] = status
                    forfeited.add(seat)
                    self.faults[agent_index] += 1
                    if self.faults[agent_index] >= self.policy.max_faults or fault.gone:
                        self.out_of_match[agent_index] = status
                    if not fault.gone:  # a bot that is gone or cut off is told nothing more
                        await self._bounded(
                            agent_index,
                            partial(
                                self.agents[agent_index].fault, self.decision_ids[agent_index], status, detail
                            ),
                            message_s,
                        )
                    action = state.random_action(fallback_rng)
                    record.fallback.append(len(record.actions))
            state.apply(action, rng)
            record.actions.append((seat, action))
            record.times_ms.append(round(elapsed_ms, 3))
        record.engine_result = state.result()
        # A forfeit costs the whole team its game (in a free-for-all, a team is one seat).
        teams = {self.game.team_of(seat) for seat in forfeited}
        record.forfeited = [seat for seat in range(len(self.agents)) if self.game.team_of(seat) in teams]
        record.result = forfeit_result(self.game, record.engine_result, record.forfeited)
        record.statuses = statuses
        record.reveal = state.reveal()
        status_names = [str(status) for status in statuses]
        result = record.result
        await asyncio.gather(
            *(
                self._bounded(
                    agent_index,
                    partial(self.agents[agent_index].end_game, number, result, status_names),
                    message_s,
                )
                for agent_index in seating
                if self.out_of_match[agent_index] is None
            )
        )
        return record

    async def _ask(
        self, state: GameState[Any, Any], seat: int, agent_index: int
    ) -> tuple[Any, float, Reply | None]:
        """One decision: the action (``None`` on a fault), the time it took, and the fault if any."""
        self.decision_ids[agent_index] += 1
        legal = state.legal_actions()
        bank = self.bank_ms[agent_index]
        started = time.perf_counter()
        alarm = self._alarm
        assert alarm is not None
        alarm.set((self.limits.decision_ms + bank + DECISION_GRACE_MS) / 1000)
        reply: Reply | None = None
        try:
            reply = await self.agents[agent_index].decide(
                self.decision_ids[agent_index],
                state.observation(seat),
                legal,
                self.limits.decision_ms,
                int(bank),
            )
        except asyncio.CancelledError:
            if not self._withdraw_cut_off():
                raise
            self._out(agent_index, Status.TIMEOUT)
        finally:
            alarm.clear()
            self._withdraw_cut_off()
        elapsed_ms = (time.perf_counter() - started) * 1000.0
        if reply is None:
            return (
                None,
                elapsed_ms,
                Reply(status=Status.TIMEOUT, detail=f"no answer within {elapsed_ms:.0f} ms", gone=True),
            )
        over = elapsed_ms - self.limits.decision_ms
        if over > 0:
            self.bank_ms[agent_index] = max(0.0, bank - over)
        if reply.status is not Status.OK:
            return None, elapsed_ms, reply
        if over > bank:
            return (
                None,
                elapsed_ms,
                Reply(status=Status.TIMEOUT, detail=f"answered after {elapsed_ms:.0f} ms"),
            )
        try:
            self._check_legal(state, reply.action, legal, self.game.lists_all_actions)
        except IllegalAction as error:
            return None, elapsed_ms, Reply(status=Status.ILLEGAL_ACTION, detail=f"{reply.action!r}: {error}")
        return reply.action, elapsed_ms, None

    @staticmethod
    def _check_legal(state: GameState[Any, Any], action: Any, legal: Sequence[Any], listed_all: bool) -> None:
        """Raise ``IllegalAction`` with the rules' reason unless ``action`` is legal. An unlisted
        action is legal only in a game that does not list all its actions and whose rules accept it."""
        if action in legal:
            return
        try:
            state.check(action)
        except IllegalAction:
            raise
        except Exception as error:
            raise IllegalAction(f"not an action of this game ({error!r})") from error
        if listed_all:
            raise IllegalAction("not among the legal actions")
