"""What ``arena bot check`` tries a believe bot in: its situations, and where each is found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.checks.pins import Pin
from arena.checks.situations import DEADLINE, FAULT, Situation
from arena.games.base import GameState
from arena.games.believe import BelieveObservation, place_rule


def _believe(test: Callable[[BelieveObservation], bool]) -> Callable[[GameState[Any, Any], int], bool]:
    return lambda state, seat: test(state.observation(seat))


def _previous_placer_is_out_of_cards(seen: BelieveObservation) -> bool:
    return seen.pile_open and seen.hand_size > 0 and seen.hand_counts[seen.claims[-1].seat] == 0


SITUATIONS = (
    Situation("first placement of the game", 3, _believe(lambda seen: not seen.checks and not seen.claims)),
    Situation(
        "new pile after a call",
        3,
        _believe(lambda seen: not seen.pile_open and len(seen.checks) >= 3),
    ),
    Situation(
        "add to an open pile (kind fixed) or call",
        3,
        _believe(lambda seen: place_rule(seen).kind_fixed and seen.hand_size >= 9),
    ),
    Situation("call on a long pile", 3, _believe(lambda seen: len(seen.claims) >= 8 and seen.hand_size > 0)),
    Situation(
        "call with no cards left (only calls are legal)",
        3,
        _believe(lambda seen: seen.pile_open and seen.hand_size == 0),
    ),
    Situation("call on the previous player's last cards", 3, _believe(_previous_placer_is_out_of_cards)),
    Situation(
        "two players left",
        3,
        _believe(lambda seen: sum(1 for place in seen.places if place == 0) == 2),
    ),
    Situation(
        "largest observation: 8 seats, a long check history",
        8,
        _believe(lambda seen: len(seen.checks) >= 140),
    ),
    Situation(DEADLINE, 3, _believe(lambda seen: seen.pile_open)),
    Situation(FAULT, 3, _believe(lambda seen: seen.pile_open)),
)
"""The situations, in the order they are checked."""

PINS = (
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
)
"""Where each situation is found (``python -m arena.checks.pins`` finds them afresh), in the order
of ``SITUATIONS``."""
