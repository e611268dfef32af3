"""The shape of a rated ladder match: its sides, the seats each side's bot fills, its games and legs.

It is one definition for the ladder's scheduler and for validation. A ladder match plays every deal
in every seat rotation (duplicate deals): ``LADDER_GAMES`` games, which 2, 3 and 4 rotations divide,
in one leg per rotation, each by fresh bot processes; so a bot process is told 6, 4 or 3 games. A
free-for-all match seats as many bots as the ladder has, up to ``FREE_FOR_ALL_SEATS``; a kozel match
seats two teams, each one bot in both of its side's seats. The bots are shuffled over the sides, so a
bot's seat in ``MatchStart`` is any of them.

Validation plays a ladder match of a shape drawn from every shape a ladder can take (``shapes``),
seated as the ladder seats it (``draw_seating``), so that what it tells a bot (games per process,
seats, clocks, its seat, its partner, duplicate legs) a rated leg tells it too.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from arena.games.registry import get_game

LADDER_GAMES = 12
"""Games per ladder match: 6 deals of 2 seats, 4 of 3, 3 of 4 (and of kozel's two teams)."""
FREE_FOR_ALL_SEATS = 4
"""Seats of a free-for-all ladder match (fewer when fewer bots are on the ladder)."""
T = TypeVar("T")


@dataclass(frozen=True)
class Shape:
    """A ladder match's shape: ``sides`` bots, each in ``team_seats`` seats, ``LADDER_GAMES`` games
    in duplicate legs."""

    sides: int
    team_seats: int = 1
    games: int = LADDER_GAMES
    duplicate: bool = True

    @property
    def seats(self) -> int:
        return self.sides * self.team_seats

    @property
    def leg_games(self) -> int:
        """Games a bot process is told of: one leg's."""
        return self.games // self.seats

    def seating(self, units: Sequence[T]) -> tuple[T, ...]:
        """The sides' bots in starting seat order, a team's bot in every one of its side's seats
        (kozel: ``(a, b, a, b)``)."""
        assert len(units) == self.sides
        return tuple(units[seat % self.sides] for seat in range(self.seats))


def shape_for(game: str, entrants: int) -> Shape:
    """The shape of a ladder match of ``game`` among ``entrants`` bots (see the module docstring)."""
    engine = get_game(game)
    if engine.teams is not None:
        sides = len(set(engine.teams))
        return Shape(sides=sides, team_seats=len(engine.teams) // sides)
    return Shape(sides=max(engine.min_seats, min(entrants, FREE_FOR_ALL_SEATS, engine.max_seats)))


def shapes(game: str) -> tuple[Shape, ...]:
    """Every shape a ladder match of ``game`` can take: its ladder holds at least one submitted bot
    and the game's built-ins (``arena.ladder.standing.entrants``), and any number more."""
    smallest = 1 + len(get_game(game).builtin_bots)
    return tuple(
        dict.fromkeys(shape_for(game, n) for n in range(smallest, smallest + FREE_FOR_ALL_SEATS + 1))
    )


def draw_seating(shape: Shape, bot: T, others: Sequence[T], rng: random.Random) -> tuple[T, ...]:
    """A seating of ``bot`` against ``shape.sides - 1`` of ``others``, drawn as the ladder draws one:
    distinct opponents while there are enough (then again from all of them), every bot on a side
    drawn uniformly."""
    pool: list[T] = []
    while len(pool) < shape.sides - 1:
        pool += rng.sample(list(others), min(len(others), shape.sides - 1 - len(pool)))
    units = [bot, *pool]
    rng.shuffle(units)
    return shape.seating(units)
