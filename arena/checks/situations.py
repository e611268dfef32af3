"""The situations a bot is checked in: each a test on the state in which the checked seat is to act,
named for the report. Each game lists its own (``SITUATIONS`` in its folder's ``checks``).

A situation is reached by playing a seeded game at random (``playout``) up to a pinned decision
(``arena.checks.pins``); the tests here say what that decision must be, and a test of the suite
replays every pin to see that it still is.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from arena.games.base import Game, GameState
from arena.games.registry import game_module

DEADLINE = "a decision near its deadline"
FAULT = "playing on after a fault"
FAULT_FOLLOWUPS = 2
"""After the arena's fault, the checked seat's next decisions (this many) must be answered well."""


@dataclass(frozen=True)
class Situation:
    name: str
    seats: int
    """The seat count of the games it is looked for in."""
    holds: Callable[[GameState[Any, Any], int], bool]
    """Whether the state, with ``seat`` to act, is this situation."""


def playout(game: Game[Any, Any, Any], seats: int, seed: int) -> Iterator[tuple[int, GameState[Any, Any]]]:
    """A game of ``game``'s default config dealt from ``seed`` and played at random (each seat's
    action uniform among all it may do, drawn from a source derived from ``seed``): ``(index,
    state)`` before each action. The state is the game's own: look, do not change it."""
    chance, moves = random.Random(seed), random.Random(f"{seed}:moves")
    state = game.new_state(game.config_type(), seats, chance)
    index = 0
    while state.to_act() is not None:
        yield index, state
        state.apply(state.random_action(moves), chance)
        index += 1


def situations_of(game: Game[Any, Any, Any]) -> tuple[Situation, ...]:
    """The situations a bot of ``game`` is checked in, in order: ``SITUATIONS`` in the game's folder
    (``arena.games.<name>.checks``); none for a game without one."""
    module = game_module(game, "checks")
    return () if module is None else tuple(module.SITUATIONS)


def situation(game: Game[Any, Any, Any], name: str) -> Situation:
    return next(known for known in situations_of(game) if known.name == name)
