"""Edible / Inedible (a reskin of Skull): see RULES.md beside this file."""

from arena.games.edible.engine import (
    PASS,
    Bid,
    Card,
    Discard,
    Edible,
    EdibleAction,
    EdibleConfig,
    EdibleObservation,
    EdibleState,
    Flip,
    NameFirst,
    Pass,
    Phase,
    PickBlind,
    Place,
    RoundSummary,
    SeatView,
    Turned,
)

__all__ = [
    "PASS",
    "Bid",
    "Card",
    "Discard",
    "Edible",
    "EdibleAction",
    "EdibleConfig",
    "EdibleObservation",
    "EdibleState",
    "Flip",
    "NameFirst",
    "Pass",
    "Phase",
    "PickBlind",
    "Place",
    "RoundSummary",
    "SeatView",
    "Turned",
]

GAME = Edible()
