"""What ``arena bot check`` tries a kozel bot in: its situations, and where each is found."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.checks.pins import Pin
from arena.checks.situations import DEADLINE, FAULT, Situation
from arena.games.base import GameState
from arena.games.kozel import Beat, KozelObservation, Phase


def _kozel(
    test: Callable[[KozelObservation, list[Any]], bool],
) -> Callable[[GameState[Any, Any], int], bool]:
    return lambda state, seat: test(state.observation(seat), state.legal_actions())


def _beats(legal: list[Any]) -> bool:
    return any(isinstance(action, Beat) for action in legal)


SITUATIONS = (
    Situation(
        "lead from a full hand",
        4,
        _kozel(lambda seen, legal: seen.phase is Phase.LEAD and seen.stock_count > 0),
    ),
    Situation(
        "beat or discard one card",
        4,
        _kozel(
            lambda seen, legal: seen.phase is Phase.PLAY and len(seen.trick[0].cards) == 1 and _beats(legal)
        ),
    ),
    Situation(
        "beat or discard several cards",
        4,
        _kozel(
            lambda seen, legal: seen.phase is Phase.PLAY and len(seen.trick[0].cards) >= 2 and _beats(legal)
        ),
    ),
    Situation(
        "discard (nothing beats)",
        4,
        _kozel(lambda seen, legal: seen.phase is Phase.PLAY and not _beats(legal)),
    ),
    Situation(  # one where the seat may declare: every seat still to play is asked, most may only decline
        "molodka window",
        4,
        _kozel(lambda seen, legal: seen.phase is Phase.MOLODKA and len(legal) > 1),
    ),
    Situation(
        "lead from a short hand at the end of a deal",
        4,
        _kozel(lambda seen, legal: seen.phase is Phase.LEAD and seen.stock_count == 0 and len(seen.hand) < 4),
    ),
    Situation(
        "play the last card of a deal",
        4,
        _kozel(
            lambda seen, legal: seen.phase is Phase.PLAY and seen.stock_count == 0 and len(seen.hand) == 1
        ),
    ),
    Situation(
        "largest observation: late in a long series",
        4,
        _kozel(lambda seen, legal: seen.deal_number >= 6 and len(seen.tricks) >= 6),
    ),
    Situation(DEADLINE, 4, _kozel(lambda seen, legal: seen.phase is Phase.PLAY)),
    Situation(FAULT, 4, _kozel(lambda seen, legal: seen.phase is Phase.LEAD)),
)
"""The situations, in the order they are checked."""

PINS = (
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
)
"""Where each situation is found (``python -m arena.checks.pins`` finds them afresh), in the order
of ``SITUATIONS``."""
