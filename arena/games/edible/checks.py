"""What ``arena bot check`` tries an edible bot in: its situations, and where each is found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.checks.pins import Pin
from arena.checks.situations import DEADLINE, FAULT, Situation
from arena.games.base import GameState
from arena.games.edible import EdibleObservation, Phase


def _edible(test: Callable[[EdibleObservation], bool]) -> Callable[[GameState[Any, Any], int], bool]:
    return lambda state, seat: test(state.observation(seat))


def _phase(phase: Phase) -> Callable[[GameState[Any, Any], int], bool]:
    return _edible(lambda seen: seen.phase is phase)


SITUATIONS = (
    Situation("place a card (step 1)", 3, _phase(Phase.PLACE)),
    Situation(
        "place with only boots in hand",
        3,
        _edible(lambda seen: seen.phase is Phase.PLACE and not seen.hand_sausages),
    ),
    Situation("add a card or open the auction", 3, _phase(Phase.ADD_OR_BID)),
    Situation("raise or pass in the auction", 3, _phase(Phase.AUCTION)),
    Situation("turn an opponent's card (attempt)", 3, _phase(Phase.ATTEMPT)),
    Situation("blind pick of the challenger's card", 3, _phase(Phase.BLIND_PICK)),
    Situation("choose the card to lose", 3, _phase(Phase.CHOOSE_LOSS)),
    Situation("name the next first player", 3, _phase(Phase.NAME_FIRST)),
    Situation(
        "largest observation: 6 seats, late in the game",
        6,
        _edible(lambda seen: seen.round_number >= 10 and len(seen.auction) >= 6),
    ),
    Situation(DEADLINE, 3, _phase(Phase.ADD_OR_BID)),
    Situation(FAULT, 3, _phase(Phase.PLACE)),
)
"""The situations, in the order they are checked."""

PINS = (
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
)
"""Where each situation is found (``python -m arena.checks.pins`` finds them afresh), in the order
of ``SITUATIONS``."""
