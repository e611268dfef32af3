"""What the runner and the agents behind each seat agree on, and the ``Agent`` interface itself.

That is: the statuses a seat's answer can have, the clocks (``Limits``), the fault policy, what an
agent is told when it starts and what it answers. An agent is whatever stands behind a seat: a bot in
this process, or a bot process over gRPC.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.games.base import Game, GameConfig, GameResult


class Status(StrEnum):
    OK = "ok"
    TIMEOUT = "timeout"
    CRASH = "crash"
    ILLEGAL_ACTION = "illegal_action"
    PROTOCOL_ERROR = "protocol_error"
    MEMORY = "memory"
    """Over its memory limit (sandboxed bots)."""
    CPU = "cpu"
    """Over its CPU time limit (sandboxed bots)."""


@dataclass(frozen=True)
class Limits:
    """Clocks: ``decision_ms`` per decision; time beyond it is drawn from a ``bank_ms`` per match."""

    decision_ms: int = 1000
    bank_ms: int = 10_000
    startup_ms: int = 10_000
    """How long a bot process may take to start and connect (not drawn from the bank)."""
    message_ms: int = 5_000
    """How long any other call to an agent (a game's start or end, a fault, the match's end) may take."""

    def match_bound_s(self, games: int, legs: int, agents: int, action_cap: int) -> float:
        """The longest a match can take: every call to an agent is under a deadline, so this is
        their sum (each leg's start-up and close, each game's messages, every decision at its
        full clock, every agent's bank once per leg)."""
        per_leg = (self.startup_ms + CLOSE_MS + self.message_ms + agents * self.bank_ms) / 1000
        per_game = (
            2 * self.message_ms + action_cap * (self.decision_ms + DECISION_GRACE_MS + self.message_ms)
        ) / 1000
        return legs * per_leg + games * per_game


GAMES_PER_MATCH = 20
"""A tournament's games per match unless its creator chose otherwise."""
DECISION_GRACE_MS = 1_000
"""How far past a decision's clock the runner waits before it cuts the agent off: the agent itself
answers ``timeout`` at the clock; this only bounds an agent that does not."""
CLOSE_MS = 15_000
"""Upper bound on releasing a leg's agents (processes killed, sandbox slots freed)."""


@dataclass(frozen=True)
class FaultPolicy:
    """A fault forfeits the game; ``max_faults`` faults, or a bot process that is gone, forfeit the match."""

    max_faults: int = 3


@dataclass(frozen=True)
class Reply:
    """What an agent answered: an action, or the fault that replaced it."""

    action: Any = None
    status: Status = Status.OK
    detail: str = ""
    gone: bool = False
    """The bot can play no more (its process died or its connection closed)."""


@dataclass(frozen=True)
class MatchSetup:
    """What every agent is told when it starts: about its leg of the match, and nothing more."""

    match_id: str
    """A random label of the leg (the match's own id stays with the arena)."""
    game: Game[Any, Any, Any]
    config: GameConfig
    names: tuple[str, ...]
    """What seats are called, in seat order: ``seat N``, never a bot's name."""
    games: int
    """Games in the leg."""
    limits: Limits
    bot_seeds: tuple[int, ...]


class Agent(ABC):
    """One seat's bot as the runner sees it. Implementations never raise for a bot's fault:
    they return a ``Reply`` with the status instead."""

    name: str

    @abstractmethod
    async def start_match(self, setup: MatchSetup, agent_index: int) -> Reply: ...

    @abstractmethod
    async def start_game(self, game_index: int, seat: int) -> None: ...

    @abstractmethod
    async def decide(
        self, decision_id: int, observation: Any, legal: Sequence[Any], decision_ms: int, bank_ms: int
    ) -> Reply:
        """Ask for an action; give up after ``decision_ms + bank_ms`` with a timeout."""

    @abstractmethod
    async def fault(self, decision_id: int, status: Status, detail: str) -> None:
        """Tell the bot its answer was not accepted."""

    @abstractmethod
    async def end_game(self, game_index: int, result: GameResult, statuses: Sequence[str]) -> None: ...

    @abstractmethod
    async def end_match(self, totals: Sequence[float], detail: str) -> None: ...

    @abstractmethod
    async def close(self) -> None:
        """Release everything (a process, a stream); safe to call twice."""

    @abstractmethod
    def log_text(self) -> str:
        """The bot's log so far (stderr, capped, with its last traceback)."""
