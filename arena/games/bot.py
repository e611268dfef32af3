"""The bot contract: one class with ``act(observation) -> action`` (``sdk.Bot`` to bot authors).

A bot process lives for a whole match (many games). The SDK calls, in order:
``on_match_start`` once, then for every game ``on_game_start``, ``act`` for each decision
and ``on_game_end``, and finally ``on_match_end``. Only ``act`` is required. Before each
``act`` call the SDK sets ``self.legal_actions`` (every legal action, in the engine's order)
and ``self.time_left_ms`` (this decision's time plus the match time bank). ``self.rng`` is a
``random.Random`` seeded by the arena for this bot, so a bot that draws only from it plays
reproducibly. Anything the bot prints to stderr goes to its log.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from arena.games.base import GameConfig, GameResult

A = TypeVar("A")
Obs = TypeVar("Obs")


@dataclass(frozen=True)
class MatchInfo:
    """The match's fixed facts, as sent in MatchStart."""

    match_id: str
    game: str
    game_version: int
    config: GameConfig
    seat: int
    seat_names: tuple[str, ...]
    teams: tuple[int, ...]
    games: int
    decision_ms: int
    bank_ms: int
    bot_seed: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


class Bot(Generic[Obs, A]):
    """Subclass this and implement ``act``; override the ``on_*`` hooks if useful."""

    #: Shown in logs and result tables; defaults to the class name.
    name: str = ""

    def __init__(self) -> None:
        self.legal_actions: Sequence[A] = ()
        self.time_left_ms: int = 0
        self.rng = random.Random(0)
        self.match: MatchInfo | None = None
        self.seat = 0

    def act(self, observation: Obs) -> A:
        """Choose an action for ``observation``: one of ``self.legal_actions``, or, in a game
        whose actions are too many to list (Believe's placements), any action its rules allow."""
        raise NotImplementedError

    def on_match_start(self, match: MatchInfo) -> None:
        """Called once before the first game."""

    def on_game_start(self, game_index: int, seat: int) -> None:
        """Called before each game with this bot's seat in it."""

    def on_game_end(self, game_index: int, result: GameResult) -> None:
        """Called after each game."""

    def on_match_end(self) -> None:
        """Called once after the last game."""

    # -- called by the SDK and the in-process runner, not by bot authors --

    def begin_match(self, match: MatchInfo) -> None:
        self.match = match
        self.seat = match.seat
        self.rng = random.Random(match.bot_seed)
        self.on_match_start(match)

    def begin_game(self, game_index: int, seat: int) -> None:
        self.seat = seat
        self.on_game_start(game_index, seat)

    def decide(self, observation: Obs, legal_actions: Sequence[A], time_left_ms: int) -> A:
        self.legal_actions = legal_actions
        self.time_left_ms = time_left_ms
        return self.act(observation)

    def display_name(self) -> str:
        return self.name or type(self).__name__


class RandomBot(Bot[Obs, A]):
    """Picks uniformly among the legal actions: the built-in ``random`` bot of every game that lists
    all its actions (a game's ``bots`` module names it; Believe, which does not, has its own)."""

    name = "random"

    def act(self, observation: Obs) -> A:
        return self.rng.choice(self.legal_actions)
