"""sdk.features: fixed sizes, action indices that name each legal action once, and believe's
factored placements covering every legal placement."""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from arena.games import believe, edible, kozel
from arena.games.registry import get_game
from sdk import features

SIZES = {
    "edible": features.EDIBLE_FEATURES,
    "believe": features.BELIEVE_FEATURES,
    "kozel": features.KOZEL_FEATURES,
}
LAYOUTS = {
    "edible": features.EDIBLE_LAYOUT,
    "believe": features.BELIEVE_LAYOUT,
    "kozel": features.KOZEL_LAYOUT,
}
VECTOR: dict[str, Callable[..., features.Vector]] = {
    "edible": features.edible_features,
    "believe": features.believe_features,
    "kozel": features.kozel_features,
}
ACTION_CODINGS: dict[str, tuple[Callable[..., int], Callable[..., object], Callable[..., features.Mask]]] = {
    "edible": (features.edible_action_index, features.edible_action, features.edible_mask),
    "kozel": (features.kozel_action_index, features.kozel_action, features.kozel_mask),
}
"""Per game with numbered actions: an action's index, the action at an index, the legal actions' mask."""
CASES = [
    ("edible", 2),
    ("edible", 4),
    ("edible", 6),
    ("believe", 2),
    ("believe", 5),
    ("believe", 8),
    ("kozel", 4),
]


def decisions(game_name: str, seats: int, games: int) -> Any:
    """Every decision of ``games`` random playouts: (state, observation of the seat to act)."""
    game = get_game(game_name)
    for seed in range(games):
        rng, chooser = random.Random(seed), random.Random(f"chooser-{seed}")
        state = game.new_state(game.config_type(), seats, rng)
        while (seat := state.to_act()) is not None:
            yield state, state.observation(seat)
            state.apply(state.random_action(chooser), rng)


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_vectors_have_the_layouts_size_and_stay_finite(game: str, seats: int) -> None:
    assert sum(size for _, size, _ in LAYOUTS[game]) == SIZES[game]
    seen = 0
    for state, observation in decisions(game, seats, 8):
        for seat in range(seats):
            vector = VECTOR[game](state.observation(seat))
            assert vector.shape == (SIZES[game],) and vector.dtype == np.float32
            assert np.isfinite(vector).all() and (vector >= 0).all(), (game, seat, observation)
        seen += 1
    assert seen > 100


def test_fields_lie_where_the_layout_says() -> None:
    _, observation = next(decisions("edible", 3, 1))
    vector = features.edible_features(observation)
    hand = vector[features.field_slice(features.EDIBLE_LAYOUT, "hand")]
    assert list(hand) == [observation.hand_sausages / 4, observation.hand_boots / 4]
    _, observation = next(decisions("kozel", 4, 1))
    vector = features.kozel_features(observation)
    cards = vector[features.field_slice(features.KOZEL_LAYOUT, "hand")]
    assert [kozel.DECK[index] for index in np.flatnonzero(cards)] == list(observation.hand)
    with pytest.raises(ValueError, match="no field 'nothing'; fields: phase"):
        features.field_slice(features.KOZEL_LAYOUT, "nothing")


@pytest.mark.parametrize(("game", "seats"), [case for case in CASES if case[0] != "believe"])
def test_each_legal_action_has_its_own_index_and_back(game: str, seats: int) -> None:
    index_of, action_at, mask_of = ACTION_CODINGS[game]
    for state, observation in decisions(game, seats, 10 if game == "kozel" else 40):
        legal = state.legal_actions()
        indices = [index_of(action, observation) for action in legal]
        assert len(set(indices)) == len(indices), f"two legal actions share an index: {legal}"
        assert [action_at(index, observation) for index in indices] == legal
        mask = mask_of(observation, legal)
        assert sorted(np.flatnonzero(mask)) == sorted(indices)


def test_an_action_outside_the_space_is_refused_by_name() -> None:
    _, observation = next(decisions("edible", 2, 1))
    with pytest.raises(ValueError, match=r"Bid\(count=99\) has no index"):
        features.edible_action_index(edible.Bid(99), observation)
    with pytest.raises(ValueError, match=r"indices are 0\.\.58, not 59"):
        features.edible_action(features.EDIBLE_ACTIONS, observation)


def test_configs_with_larger_hands_are_refused() -> None:
    features.check_config("edible", edible.EdibleConfig())
    with pytest.raises(ValueError, match="hands of at most 4 cards, not 5"):
        features.check_config("edible", edible.EdibleConfig(sausages=4))
    with pytest.raises(ValueError, match="no encoding for game 'chess'"):
        features.check_config("chess", None)


# --- believe's placements ------------------------------------------------------------------


def placements_by_mask(observation: believe.BelieveObservation) -> set[believe.Place]:
    """Every placement some sequence of masked indices ends in (a search over selections)."""
    found: set[believe.Place] = set()
    todo, seen = [features.NO_SELECTION], {features.NO_SELECTION}
    while todo:
        selection = todo.pop()
        for index in np.flatnonzero(features.believe_mask(observation, selection)):
            step = features.believe_step(int(index), observation, selection)
            if isinstance(step, tuple):
                if step not in seen:
                    seen.add(step)
                    todo.append(step)
            elif isinstance(step, believe.Place):
                found.add(step)
    return found


def legal_placements(observation: believe.BelieveObservation) -> set[believe.Place]:
    """Every placement the engine's rules allow, enumerated apart from the encoding."""
    kinds = range(observation.kinds)
    return {
        place
        for size in range(1, believe.MAX_PLACE + 1)
        for cards in itertools.combinations_with_replacement(kinds, size)
        for claim in kinds
        if believe.place_error(observation.hand, observation.pile_kind, place := believe.Place(cards, claim))
        is None
    }


def to_act_with(observation: believe.BelieveObservation, hand: tuple[int, ...], pile_kind: int) -> Any:
    counts = list(observation.hand_counts)
    counts[observation.seat] = sum(hand)
    return observation._replace(
        to_act=observation.seat,
        hand=hand,
        hand_counts=tuple(counts),
        pile_kind=pile_kind,
        pile_open=pile_kind >= 0,
    )


@pytest.mark.parametrize(
    ("hand", "pile_kind"),
    [
        ((8,) * 8, -1),  # the largest hand of the default config, no pile open: 8 claims each
        ((8,) * 8, 5),
        ((8, 0, 0, 0, 0, 0, 0, 0), -1),
        ((1, 2, 0, 3, 0, 1, 0, 1), 3),
        ((0, 0, 0, 0, 0, 0, 0, 1), -1),
    ],
)
def test_the_factored_placements_are_exactly_the_legal_ones(hand: tuple[int, ...], pile_kind: int) -> None:
    _, observation = next(decisions("believe", 4, 1))
    observation = to_act_with(observation, hand, pile_kind)
    legal = legal_placements(observation)
    assert legal, "the enumeration found nothing: the test proves nothing"
    assert placements_by_mask(observation) == legal


def test_every_placement_of_random_playouts_is_played_by_masked_steps() -> None:
    placements = 0
    for _, observation in decisions("believe", 4, 30):
        chooser = random.Random(len(observation.checks))
        action = believe.random_legal_action(observation, chooser)
        selection = features.NO_SELECTION
        for index in features.believe_steps(action):
            assert features.believe_mask(observation, selection)[index], (action, selection, index)
            step = features.believe_step(index, observation, selection)
            if isinstance(step, tuple):
                selection = step
        assert step == action
        placements += isinstance(action, believe.Place)
    assert placements > 100


def test_the_docs_page_tables_the_layouts_as_the_code_builds_them() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "features.md").read_text()
    for game, layout in LAYOUTS.items():
        at = 0
        for name, size, meaning in layout:
            assert f"| `{name}` | {at} | {size} | {meaning} |" in page, (game, name)
            at += size
    for game, actions in (
        ("edible", features.EDIBLE_ACTIONS),
        ("believe", features.BELIEVE_ACTIONS),
        ("kozel", features.KOZEL_ACTIONS),
    ):
        assert f"| {game} | {actions} |" in page
