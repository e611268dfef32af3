"""What an environment shows a seat and how it reads an index: ``sdk.features`` behind one interface.

A seat is shown its own observation only, as a vector, and, when it is to act, the mask of its legal
indices (from the engine's legal actions, which the conformance suite proves depend on nothing the
seat cannot see). Believe's placements take several indices (``sdk.features``): the cards chosen
so far, the *pending* selection, are part of what the acting seat is shown, and an index either
grows it or finishes the action. Edible's and kozel's pending is always empty.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from arena.games.base import GameState
from sdk import features
from sdk.features import Mask, Vector

Pending = tuple[int, ...]


class Encoding(Protocol):
    """A game's vector, mask and action space as an environment uses them."""

    @property
    def game(self) -> str: ...

    @property
    def size(self) -> int:
        """The vector's length."""
        ...

    @property
    def actions(self) -> int:
        """The number of action indices."""
        ...

    @property
    def start(self) -> Pending:
        """The pending state before a decision's first index."""
        ...

    def vector(self, observation: Any, pending: Pending) -> Vector: ...

    def mask(self, observation: Any, legal: Sequence[Any], pending: Pending) -> Mask:
        """The legal indices of the seat to act, whose engine's legal actions are ``legal``."""
        ...

    def decode(self, index: int, observation: Any, pending: Pending) -> tuple[Any, Pending]:
        """The engine action ``index`` finishes (or ``None``) and the pending state after it."""
        ...

    def indices(self, action: Any, observation: Any) -> list[int]:
        """The indices that play ``action`` from ``observation``, in order."""
        ...


@dataclass(frozen=True)
class FlatEncoding:
    """A game whose every action is one index (edible, kozel): ``sdk.features``' functions."""

    game: str
    size: int
    actions: int
    features: Callable[[Any], Vector]
    legal_mask: Callable[[Any, Sequence[Any]], Mask]
    action: Callable[[int, Any], Any]
    index: Callable[[Any, Any], int]
    start: Pending = ()

    def vector(self, observation: Any, pending: Pending) -> Vector:
        return self.features(observation)

    def mask(self, observation: Any, legal: Sequence[Any], pending: Pending) -> Mask:
        return self.legal_mask(observation, legal)

    def decode(self, index: int, observation: Any, pending: Pending) -> tuple[Any, Pending]:
        return self.action(index, observation), self.start

    def indices(self, action: Any, observation: Any) -> list[int]:
        return [self.index(action, observation)]


class BelieveEncoding:
    """Believe: a placement is several indices, its selection so far pending."""

    game = "believe"
    size = features.BELIEVE_FEATURES
    actions = features.BELIEVE_ACTIONS
    start = features.NO_SELECTION

    def vector(self, observation: Any, pending: Pending) -> Vector:
        return features.believe_features(observation, pending)

    def mask(self, observation: Any, legal: Sequence[Any], pending: Pending) -> Mask:
        return features.believe_mask(observation, pending)

    def decode(self, index: int, observation: Any, pending: Pending) -> tuple[Any, Pending]:
        step = features.believe_step(index, observation, pending)
        if isinstance(step, tuple):
            return None, step
        return step, self.start

    def indices(self, action: Any, observation: Any) -> list[int]:
        return features.believe_steps(action)


EDIBLE = FlatEncoding(
    "edible",
    features.EDIBLE_FEATURES,
    features.EDIBLE_ACTIONS,
    features.edible_features,
    features.edible_mask,
    features.edible_action,
    features.edible_action_index,
)
KOZEL = FlatEncoding(
    "kozel",
    features.KOZEL_FEATURES,
    features.KOZEL_ACTIONS,
    features.kozel_features,
    features.kozel_mask,
    features.kozel_action,
    features.kozel_action_index,
)
ENCODINGS: dict[str, Encoding] = {encoding.game: encoding for encoding in (EDIBLE, BelieveEncoding(), KOZEL)}


def encoding_for(game: str) -> Encoding:
    try:
        return ENCODINGS[game]
    except KeyError:
        raise ValueError(f"no environment for game {game!r}; known: {', '.join(ENCODINGS)}") from None


def shown(encoding: Encoding, state: GameState[Any, Any], seat: int, pending: Pending) -> tuple[Vector, Mask]:
    """What ``seat`` is shown in ``state``: its vector and its mask, all 0 unless it is to act,
    from its own observation, its ``pending`` choice when it acts and the engine's legal actions."""
    observation = state.observation(seat)
    if state.to_act() != seat:
        return encoding.vector(observation, encoding.start), np.zeros(encoding.actions, dtype=np.int8)
    return encoding.vector(observation, pending), encoding.mask(observation, state.legal_actions(), pending)
