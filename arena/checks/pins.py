"""Where each situation is found: a seeded random game (``playout``) and the decision in it.

The pins are data in each game's folder (``PINS`` in its ``checks``), found once by ``search``
(``python -m arena.checks.pins`` prints them afresh, say after a rules change) so that a check
plays straight to its situations; a test replays each pin to see that it still reaches its
situation.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from arena.checks.situations import FAULT, FAULT_FOLLOWUPS, Situation, playout, situation, situations_of
from arena.games.base import Game
from arena.games.registry import all_games, game_module, get_game


class Pin(NamedTuple):
    situation: str
    seats: int
    seed: int
    """The seed of the game's ``playout``."""
    decision: int
    """The index, in that game's actions, of the checked decision."""


def pins_of(game: Game[Any, Any, Any]) -> tuple[Pin, ...]:
    """``game``'s pins, one per situation, in the order of its situations: ``PINS`` in the game's
    folder (``arena.games.<name>.checks``); none for a game without one."""
    module = game_module(game, "checks")
    return () if module is None else tuple(module.PINS)


def reaches(game: Game[Any, Any, Any], pin: Pin) -> bool:
    """Whether ``pin`` still leads to its situation (and, for the fault check, to as many further
    decisions of the same seat as the check asks for)."""
    known = situation(game, pin.situation)
    seat: int | None = None
    later = 0
    for index, state in playout(game, pin.seats, pin.seed):
        to_act = state.to_act()
        assert to_act is not None
        if index == pin.decision:
            if not known.holds(state, to_act):
                return False
            seat = to_act
        elif to_act == seat:
            later += 1
    return seat is not None and (pin.situation != FAULT or later >= FAULT_FOLLOWUPS)


def _search_game(game: Game[Any, Any, Any], situation: Situation, seed: int) -> int | None:
    """The first decision of the seeded game that is ``situation`` (with, for the fault check,
    enough decisions of the same seat after it), or ``None``."""
    seats: list[int] = []
    hits: list[int] = []
    for index, state in playout(game, situation.seats, seed):
        seat = state.to_act()
        assert seat is not None
        seats.append(seat)
        if situation.holds(state, seat):
            hits.append(index)
            if situation.name != FAULT:
                break
    for index in hits:
        if situation.name != FAULT or seats[index + 1 :].count(seats[index]) >= FAULT_FOLLOWUPS:
            return index
    return None


def search(game_name: str, seeds: int = 2000) -> tuple[Pin, ...]:
    """A pin for every situation of the game: the first seed (from 1) whose game reaches it."""
    game = get_game(game_name)
    pins = []
    for known in situations_of(game):
        for seed in range(1, seeds + 1):
            decision = _search_game(game, known, seed)
            if decision is not None:
                pins.append(Pin(known.name, known.seats, seed, decision))
                break
        else:
            raise LookupError(f"{game.name}: no game of seeds 1..{seeds} reaches {known.name!r}")
    return tuple(pins)


if __name__ == "__main__":
    for game in all_games():  # in the layout of ``PINS`` in a game's checks
        print(f"{game.package}.checks.PINS = (")
        for pin in search(game.name):
            print(f"    {pin!r},")
        print(")")
