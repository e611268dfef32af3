"""Property tests for Believe / Don't believe over many seeded random games.

* cards are conserved at every step: every card of the deck is in exactly one hand, on the pile,
  in the discard or set aside, and the public counts agree;
* ``random_action`` draws only legal actions, and all kinds of them;
* no hidden card ever reaches another seat's observation: every card a seat observes is its own
  hand, a pile it took or a revealed placement, exactly as a referee tracking the game sees them;
  and re-dealing what a seat cannot see leaves its observation unchanged;
* a re-dealt state is a sound state that plays on.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from arena.games.believe import (
    BELIEVE,
    DISBELIEVE,
    MAX_PLACE,
    Believe,
    BelieveConfig,
    BelieveGame,
    BelieveState,
    Disbelieve,
    Place,
    place_rule,
    random_legal_action,
    why_illegal,
)

CONFIGS = [
    BelieveConfig(),
    BelieveConfig(deal_leftovers=True),
    BelieveConfig(kinds=3, copies=4),
    BelieveConfig(kinds=5, copies=3, deal_leftovers=True),
]


def cases() -> list[Any]:
    return [
        pytest.param(
            config, seats, id=f"{config.kinds}x{config.copies}{'+' if config.deal_leftovers else ''}-{seats}"
        )
        for config in CONFIGS
        for seats in range(2, 9)
        if config.kinds * config.copies >= seats
    ]


def playout(config: BelieveConfig, seats: int, seed: int) -> Iterator[tuple[BelieveState, Any]]:
    """Each state of a random game, with the action about to be played (``None`` at the end)."""
    rng = random.Random(seed)
    chooser = random.Random(seed + 7919)
    state = BelieveGame().new_state(config, seats, rng)
    while state.to_act() is not None:
        action = state.random_action(chooser)
        yield state, action
        state.apply(action, rng)
    yield state, None


def card_counts(state: BelieveState) -> Counter[int]:
    reveal = state.reveal()
    cards: Counter[int] = Counter()
    for hand in reveal["hands"]:
        cards.update(hand)
    for placement in reveal["pile"]:
        cards.update(placement["cards"])
    for placement in reveal["discard"]:
        cards.update(placement["cards"])
    cards.update(reveal["set_aside"])
    return cards


def check_counts(state: BelieveState, config: BelieveConfig) -> None:
    """Every card is somewhere exactly once, and the public counts agree with the hidden state."""
    assert card_counts(state) == {kind: config.copies for kind in range(config.kinds)}
    reveal = state.reveal()
    for seat in range(state.num_seats):
        obs = state.observation(seat)
        assert obs.hand_counts == tuple(len(hand) for hand in reveal["hands"])
        assert list(obs.my_cards) == reveal["hands"][seat]
        assert obs.pile_size == sum(len(placement["cards"]) for placement in reveal["pile"])
        assert [claim.size for claim in obs.claims] == [len(p["cards"]) for p in reveal["pile"]]
        assert obs.discarded == sum(len(placement["cards"]) for placement in reveal["discard"])
        assert obs.set_aside == len(reveal["set_aside"])
        assert obs.total_cards == config.kinds * config.copies
        assert obs.copies == config.copies


@pytest.mark.parametrize(("config", "seats"), cases())
def test_cards_are_conserved_at_every_step(config: BelieveConfig, seats: int) -> None:
    for seed in range(12):
        for state, _ in playout(config, seats, seed):
            check_counts(state, config)
        assert state.is_terminal()
        result = state.result()
        assert sorted(result.ranks)[0] == 0
        assert result.detail["capped"] or state.observation(0).hand_counts.count(0) >= seats - 1


@pytest.mark.parametrize("seats", [2, 3, 5, 8])
def test_random_actions_are_legal_and_cover_every_kind_of_action(seats: int) -> None:
    counts: Counter[str] = Counter()
    claims: set[int] = set()
    sizes: set[int] = set()
    for seed in range(20):
        for state, action in playout(BelieveConfig(), seats, seed):
            if action is None:
                break
            seat = state.to_act()
            assert seat is not None
            observation = state.observation(seat)
            assert why_illegal(observation, action) is None, action
            state.check(action)  # raises if the engine disagrees
            if isinstance(action, Place):
                counts["open" if observation.pile_open else "start"] += 1
                assert 1 <= len(action.cards) <= place_rule(observation).max_cards <= MAX_PLACE
                sizes.add(len(action.cards))
                claims.add(action.claim)
            else:
                assert action in state.legal_actions()
                counts[type(action).__name__] += 1
            # The bots' helper draws exactly like the engine.
            one, two = random.Random(seed), random.Random(seed)
            assert random_legal_action(observation, one) == state.random_action(two)
    assert set(counts) == {"start", "open", "Believe", "Disbelieve"}
    assert claims == set(range(8))
    assert sizes == set(range(1, MAX_PLACE + 1))


@pytest.mark.parametrize("seats", [2, 4, 8])
def test_listed_actions_are_exactly_the_calls_while_a_pile_is_open(seats: int) -> None:
    for seed in range(10):
        for state, _ in playout(BelieveConfig(), seats, seed):
            seat = state.to_act()
            if seat is None:
                assert state.legal_actions() == []
                continue
            observation = state.observation(seat)
            assert state.legal_actions() == ([BELIEVE, DISBELIEVE] if observation.pile_open else [])
            if observation.pile_open:
                for number, call in enumerate(state.legal_actions()):
                    state.clone().apply(call, random.Random(number))


class Referee:
    """Tracks, from the true cards of every placement, what each seat is entitled to have seen."""

    def __init__(self, seats: int) -> None:
        self.pile: list[tuple[int, tuple[int, ...]]] = []
        self.taken: list[list[tuple[int, ...]]] = [[] for _ in range(seats)]
        self.revealed: list[tuple[int, ...]] = []

    def record(self, state: BelieveState, action: Any) -> None:
        seat = state.to_act()
        assert seat is not None
        if isinstance(action, Place):
            self.pile.append((seat, action.cards))
            return
        assert isinstance(action, Believe | Disbelieve)
        placer, checked = self.pile[-1]
        self.revealed.append(checked)
        every = tuple(sorted(card for _, cards in self.pile for card in cards))
        truthful = all(card == state.observation(seat).pile_kind for card in checked)
        believed = isinstance(action, Believe)
        taker = -1 if believed and truthful else seat if believed or truthful else placer
        if taker >= 0:
            self.taken[taker].append(every)
        self.pile = []


@pytest.mark.parametrize("seats", [2, 3, 6, 8])
def test_a_seat_sees_only_its_hand_the_piles_it_took_and_revealed_placements(seats: int) -> None:
    for seed in range(15):
        referee = Referee(seats)
        for state, action in playout(BelieveConfig(), seats, seed):
            reveal = state.reveal()
            for seat in range(seats):
                obs = state.observation(seat)
                assert list(obs.my_cards) == reveal["hands"][seat]
                assert list(obs.taken) == referee.taken[seat]
                assert [check.revealed for check in obs.checks] == referee.revealed
                # Nothing else in the observation names a card: the rest is counts and seats.
                assert {type(value) for value in obs.hand_counts + obs.places} <= {int}
            if action is not None:
                referee.record(state, action)


@pytest.mark.parametrize("seats", [2, 3, 5, 8])
def test_reshuffling_what_a_seat_cannot_see_keeps_its_observation(seats: int) -> None:
    probe = random.Random(seats)
    changed = 0
    for seed in range(15):
        for state, _ in playout(BelieveConfig(), seats, seed):
            if probe.random() > 0.25:
                continue
            before = state.reveal()
            for seat in range(seats):
                other = state.reshuffle_hidden(seat, probe)
                assert other.observation(seat) == state.observation(seat)
                assert other.to_act() == state.to_act()
                assert other.legal_actions() == state.legal_actions()
                check_counts(other, BelieveConfig())
                after = other.reveal()
                # Kept: the seat's own placements on the pile and in the discard, revealed discards.
                for mine, theirs in zip(before["pile"], after["pile"], strict=True):
                    assert mine["seat"] == theirs["seat"]
                    assert len(mine["cards"]) == len(theirs["cards"])
                    if mine["seat"] == seat:
                        assert mine == theirs
                for mine, theirs in zip(before["discard"], after["discard"], strict=True):
                    assert len(mine["cards"]) == len(theirs["cards"])
                    if mine["seat"] == seat or mine["revealed"]:
                        assert mine == theirs
                changed += after != before
            assert state.reveal() == before, "reshuffle_hidden changed the original"
    assert changed > 100, "reshuffle_hidden hardly ever re-dealt anything: the test proves nothing"


@pytest.mark.parametrize("seats", [2, 4, 8])
def test_a_reshuffled_state_plays_on_soundly(seats: int) -> None:
    probe = random.Random(100 + seats)
    for seed in range(10):
        for state, _ in playout(BelieveConfig(), seats, seed):
            if probe.random() > 0.1:
                continue
            other = state.reshuffle_hidden(probe.randrange(seats), probe)
            rng = random.Random(seed)
            steps = 0
            while other.to_act() is not None and steps < 60:
                other.apply(other.random_action(probe), rng)
                check_counts(other, BelieveConfig())
                steps += 1


def test_observations_of_other_seats_ignore_which_cards_a_placement_holds() -> None:
    """Two games alike except for which cards seat 0 placed: no other seat can tell them apart."""
    for seed in range(20):
        rng = random.Random(seed)
        state = BelieveGame().new_state(BelieveConfig(), 4, rng, dealer=0)
        cards = state.observation(0).my_cards
        kinds = sorted(set(cards))
        if len(kinds) < 2:
            continue
        one, two = state.clone(), state.clone()
        one.apply(Place((kinds[0],), 0), rng)
        two.apply(Place((kinds[1],), 0), rng)
        for seat in range(1, 4):
            assert one.observation(seat) == two.observation(seat)
        assert one.observation(0) != two.observation(0)
