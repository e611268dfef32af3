"""The situations a bot is checked in, per game: each a test on the state in which the checked
seat is to act, named for the report.

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
from arena.games.believe import BelieveObservation, place_rule
from arena.games.edible import EdibleObservation
from arena.games.edible import Phase as EdiblePhase
from arena.games.kozel import Beat, KozelObservation
from arena.games.kozel import Phase as KozelPhase

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


def _edible(test: Callable[[EdibleObservation], bool]) -> Callable[[GameState[Any, Any], int], bool]:
    return lambda state, seat: test(state.observation(seat))


def _believe(test: Callable[[BelieveObservation], bool]) -> Callable[[GameState[Any, Any], int], bool]:
    return lambda state, seat: test(state.observation(seat))


def _kozel(
    test: Callable[[KozelObservation, list[Any]], bool],
) -> Callable[[GameState[Any, Any], int], bool]:
    return lambda state, seat: test(state.observation(seat), state.legal_actions())


def _phase(phase: EdiblePhase) -> Callable[[GameState[Any, Any], int], bool]:
    return _edible(lambda seen: seen.phase is phase)


def _beats(legal: list[Any]) -> bool:
    return any(isinstance(action, Beat) for action in legal)


def _previous_placer_is_out_of_cards(seen: BelieveObservation) -> bool:
    return seen.pile_open and seen.hand_size > 0 and seen.hand_counts[seen.claims[-1].seat] == 0


SITUATIONS: dict[str, tuple[Situation, ...]] = {
    "edible": (
        Situation("place a card (step 1)", 3, _phase(EdiblePhase.PLACE)),
        Situation(
            "place with only boots in hand",
            3,
            _edible(lambda seen: seen.phase is EdiblePhase.PLACE and not seen.hand_sausages),
        ),
        Situation("add a card or open the auction", 3, _phase(EdiblePhase.ADD_OR_BID)),
        Situation("raise or pass in the auction", 3, _phase(EdiblePhase.AUCTION)),
        Situation("turn an opponent's card (attempt)", 3, _phase(EdiblePhase.ATTEMPT)),
        Situation("blind pick of the challenger's card", 3, _phase(EdiblePhase.BLIND_PICK)),
        Situation("choose the card to lose", 3, _phase(EdiblePhase.CHOOSE_LOSS)),
        Situation("name the next first player", 3, _phase(EdiblePhase.NAME_FIRST)),
        Situation(
            "largest observation: 6 seats, late in the game",
            6,
            _edible(lambda seen: seen.round_number >= 10 and len(seen.auction) >= 6),
        ),
        Situation(DEADLINE, 3, _phase(EdiblePhase.ADD_OR_BID)),
        Situation(FAULT, 3, _phase(EdiblePhase.PLACE)),
    ),
    "believe": (
        Situation(
            "first placement of the game", 3, _believe(lambda seen: not seen.checks and not seen.claims)
        ),
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
        Situation(
            "call on a long pile", 3, _believe(lambda seen: len(seen.claims) >= 8 and seen.hand_size > 0)
        ),
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
    ),
    "kozel": (
        Situation(
            "lead from a full hand",
            4,
            _kozel(lambda seen, legal: seen.phase is KozelPhase.LEAD and seen.stock_count > 0),
        ),
        Situation(
            "beat or discard one card",
            4,
            _kozel(
                lambda seen, legal: (
                    seen.phase is KozelPhase.PLAY and len(seen.trick[0].cards) == 1 and _beats(legal)
                )
            ),
        ),
        Situation(
            "beat or discard several cards",
            4,
            _kozel(
                lambda seen, legal: (
                    seen.phase is KozelPhase.PLAY and len(seen.trick[0].cards) >= 2 and _beats(legal)
                )
            ),
        ),
        Situation(
            "discard (nothing beats)",
            4,
            _kozel(lambda seen, legal: seen.phase is KozelPhase.PLAY and not _beats(legal)),
        ),
        Situation(  # one where the seat may declare: every seat still to play is asked, most may only decline
            "molodka window",
            4,
            _kozel(lambda seen, legal: seen.phase is KozelPhase.MOLODKA and len(legal) > 1),
        ),
        Situation(
            "lead from a short hand at the end of a deal",
            4,
            _kozel(
                lambda seen, legal: (
                    seen.phase is KozelPhase.LEAD and seen.stock_count == 0 and len(seen.hand) < 4
                )
            ),
        ),
        Situation(
            "play the last card of a deal",
            4,
            _kozel(
                lambda seen, legal: (
                    seen.phase is KozelPhase.PLAY and seen.stock_count == 0 and len(seen.hand) == 1
                )
            ),
        ),
        Situation(
            "largest observation: late in a long series",
            4,
            _kozel(lambda seen, legal: seen.deal_number >= 6 and len(seen.tricks) >= 6),
        ),
        Situation(DEADLINE, 4, _kozel(lambda seen, legal: seen.phase is KozelPhase.PLAY)),
        Situation(FAULT, 4, _kozel(lambda seen, legal: seen.phase is KozelPhase.LEAD)),
    ),
}
"""Every game's situations, in the order they are checked."""


def situation(game: str, name: str) -> Situation:
    return next(known for known in SITUATIONS[game] if known.name == name)
