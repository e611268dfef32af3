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
from typing import Any, NamedTuple, Protocol

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

    def legal(self, observation: Any, state: GameState[Any, Any], pending: Pending) -> tuple[Mask, Finishing]:
        """The mask of the seat to act in ``state`` (from the engine's legal actions where the
        encoding needs them), and the engine action of each index that finishes one, when known
        (so that playing it builds nothing)."""
        ...

    def advance(self, seen: Shown, index: int, pending: Pending) -> tuple[Any, Pending]:
        """Play the legal index ``index`` of the seat shown ``seen``: ``decode``'s answer, and
        when the index grows the choice (believe's placements), ``seen`` made, in place, what the
        seat is shown next (its observation stands)."""
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
    legal_indices: Callable[[Any, Sequence[Any]], list[int]]
    action: Callable[[int, Any], Any]
    index: Callable[[Any, Any], int]
    start: Pending = ()

    def vector(self, observation: Any, pending: Pending) -> Vector:
        return self.features(observation)

    def legal(self, observation: Any, state: GameState[Any, Any], pending: Pending) -> tuple[Mask, Finishing]:
        legal = state.legal_actions()
        indices = self.legal_indices(observation, legal)
        return features.index_mask(self.actions, indices), Finishing(indices, legal)

    def advance(self, seen: Shown, index: int, pending: Pending) -> tuple[Any, Pending]:
        action = seen.actions.get(index)
        return (self.action(index, seen.observation) if action is None else action), self.start

    def decode(self, index: int, observation: Any, pending: Pending) -> tuple[Any, Pending]:
        return self.action(index, observation), self.start

    def indices(self, action: Any, observation: Any) -> list[int]:
        return [self.index(action, observation)]


class BelieveEncoding:
    """Believe: a placement is several indices, its selection so far pending. While a seat builds
    a placement its observation stands, and its vector and mask change in a few entries, written
    in place (``features.believe_add``)."""

    game = "believe"
    size = features.BELIEVE_FEATURES
    actions = features.BELIEVE_ACTIONS
    start = features.NO_SELECTION

    def vector(self, observation: Any, pending: Pending) -> Vector:
        return features.believe_features(observation, pending)

    def legal(self, observation: Any, state: GameState[Any, Any], pending: Pending) -> tuple[Mask, Finishing]:
        return features.believe_mask(observation, pending), NOTHING_FINISHED

    def advance(self, seen: Shown, index: int, pending: Pending) -> tuple[Any, Pending]:
        step = features.believe_step(index, seen.observation, pending)
        if isinstance(step, tuple):
            features.believe_add(seen.vector, seen.mask, seen.observation, step, index - features.BELIEVE_ADD)
            return None, step
        return step, self.start

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
    features.edible_legal_indices,
    features.edible_action,
    features.edible_action_index,
)
KOZEL = FlatEncoding(
    "kozel",
    features.KOZEL_FEATURES,
    features.KOZEL_ACTIONS,
    features.kozel_features,
    features.kozel_legal_indices,
    features.kozel_action,
    features.kozel_action_index,
)
ENCODINGS: dict[str, Encoding] = {encoding.game: encoding for encoding in (EDIBLE, BelieveEncoding(), KOZEL)}


def encoding_for(game: str) -> Encoding:
    try:
        return ENCODINGS[game]
    except KeyError:
        raise ValueError(f"no environment for game {game!r}; known: {', '.join(ENCODINGS)}") from None


class Finishing(NamedTuple):
    """The engine actions that indices finish: ``legal[k]`` is index ``indices[k]``'s."""

    indices: Sequence[int]
    legal: Sequence[Any]

    def get(self, index: int) -> Any:
        """The engine action ``index`` finishes, or ``None`` if it is not listed."""
        indices = self.indices
        return self.legal[indices.index(index)] if index in indices else None


NOTHING_FINISHED = Finishing((), ())


class Shown(NamedTuple):
    """What a seat is shown: its typed observation, its vector and its mask; and, for the seat to
    act, the engine action of each index that finishes one, where the encoding knows them."""

    observation: Any
    vector: Vector
    mask: Mask
    actions: Finishing


def shown(
    encoding: Encoding, state: GameState[Any, Any], seat: int, pending: Pending, observation: Any = None
) -> Shown:
    """What ``seat`` is shown in ``state``: its observation (``observation`` if given, as it stands
    while a placement grows), vector and mask (all 0 unless it is to act), from its own observation,
    its ``pending`` choice when it acts and the engine's legal actions."""
    if observation is None:
        observation = state.observation(seat)
    if state.to_act() != seat:
        vector = encoding.vector(observation, encoding.start)
        return Shown(observation, vector, np.zeros(encoding.actions, dtype=np.int8), NOTHING_FINISHED)
    vector = encoding.vector(observation, pending)
    return Shown(observation, vector, *encoding.legal(observation, state, pending))
