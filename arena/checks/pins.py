"""Where each situation is found: a seeded random game (``playout``) and the decision in it.

The pins are data, found once by ``search`` (``python -m arena.checks.pins`` prints them afresh,
say after a rules change) so that a check plays straight to its situations; a test replays each
pin to see that it still reaches its situation.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from arena.checks.situations import FAULT, FAULT_FOLLOWUPS, SITUATIONS, Situation, playout, situation
from arena.games.base import Game
from arena.games.registry import get_game


class Pin(NamedTuple):
    situation: str
    seats: int
    seed: int
    """The seed of the game's ``playout``."""
    decision: int
    """The index, in that game's actions, of the checked decision."""


PINS: dict[str, tuple[Pin, ...]] = {
    "edible": (
        Pin(situation="place a card (step 1)", seats=3, seed=1, decision=0),
        Pin(situation="place with only boots in hand", seats=3, seed=10, decision=21),
        Pin(situation="add a card or open the auction", seats=3, seed=1, decision=3),
        Pin(situation="raise or pass in the auction", seats=3, seed=1, decision=5),
        Pin(situation="turn an opponent's card (attempt)", seats=3, seed=1, decision=6),
        Pin(situation="blind pick of the challenger's card", seats=3, seed=1, decision=8),
        Pin(situation="choose the card to lose", seats=3, seed=1, decision=15),
        Pin(situation="name the next first player", seats=3, seed=25, decision=44),
        Pin(situation="largest observation: 6 seats, late in the game", seats=6, seed=5, decision=126),
        Pin(situation="a decision near its deadline", seats=3, seed=1, decision=3),
        Pin(situation="playing on after a fault", seats=3, seed=1, decision=0),
    ),
    "believe": (
        Pin(situation="first placement of the game", seats=3, seed=1, decision=0),
        Pin(situation="new pile after a call", seats=3, seed=1, decision=8),
        Pin(situation="add to an open pile (kind fixed) or call", seats=3, seed=1, decision=1),
        Pin(situation="call on a long pile", seats=3, seed=34, decision=84),
        Pin(situation="call with no cards left (only calls are legal)", seats=3, seed=2, decision=218),
        Pin(situation="call on the previous player's last cards", seats=3, seed=1, decision=92),
        Pin(situation="two players left", seats=3, seed=1, decision=94),
        Pin(situation="largest observation: 8 seats, a long check history", seats=8, seed=18, decision=363),
        Pin(situation="a decision near its deadline", seats=3, seed=1, decision=1),
        Pin(situation="playing on after a fault", seats=3, seed=1, decision=1),
    ),
    "kozel": (
        Pin(situation="lead from a full hand", seats=4, seed=1, decision=4),
        Pin(situation="beat or discard one card", seats=4, seed=1, decision=8),
        Pin(situation="beat or discard several cards", seats=4, seed=1, decision=257),
        Pin(situation="discard (nothing beats)", seats=4, seed=1, decision=69),
        Pin(situation="molodka window", seats=4, seed=1, decision=98),
        Pin(situation="lead from a short hand at the end of a deal", seats=4, seed=1, decision=84),
        Pin(situation="play the last card of a deal", seats=4, seed=1, decision=93),
        Pin(situation="largest observation: late in a long series", seats=4, seed=1, decision=477),
        Pin(situation="a decision near its deadline", seats=4, seed=1, decision=8),
        Pin(situation="playing on after a fault", seats=4, seed=1, decision=4),
    ),
}
"""Every game's pins, one per situation, in the order of ``SITUATIONS``."""


def reaches(game: Game[Any, Any, Any], pin: Pin) -> bool:
    """Whether ``pin`` still leads to its situation (and, for the fault check, to as many further
    decisions of the same seat as the check asks for)."""
    known = situation(game.name, pin.situation)
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
    for known in SITUATIONS[game.name]:
        for seed in range(1, seeds + 1):
            decision = _search_game(game, known, seed)
            if decision is not None:
                pins.append(Pin(known.name, known.seats, seed, decision))
                break
        else:
            raise LookupError(f"{game.name}: no game of seeds 1..{seeds} reaches {known.name!r}")
    return tuple(pins)


if __name__ == "__main__":
    for name in SITUATIONS:  # in the layout of ``PINS`` above
        print(f"    {name!r}: (")
        for pin in search(name):
            print(f"        {pin!r},")
        print("    ),")
