"""Scenario tests for Believe / Don't believe, one or more per rule of its RULES.md.

Written from the rules, not from the engine: each test drives the public API (``new_state``,
``apply``, ``legal_actions``, ``to_act``, ``observation``, ``result``, ``reveal``, ``clone``)
into a scenario and checks what the rules say must happen. Scenarios choose the hands with a
stacked deck: a match RNG whose shuffle lays the deck out in a chosen order, which the engine then
deals as the rules say (one card at a time clockwise from seat 1). Scenarios are dealt by seat 0
(``dealer=0``, as the previous game's loser would be given) unless they say otherwise.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, MutableSequence, Sequence
from typing import Any

import pytest

from arena.games.base import BadConfig, GameResult, IllegalAction
from arena.games.believe import (
    BELIEVE,
    DISBELIEVE,
    KIND_NAMES,
    BelieveAction,
    BelieveConfig,
    BelieveGame,
    BelieveState,
    Check,
    Claim,
    Place,
    PlaceRule,
    place_rule,
    why_illegal,
)

CALLS: list[BelieveAction] = [BELIEVE, DISBELIEVE]


# --- helpers -------------------------------------------------------------------------------


class StackedDeck(random.Random):
    """A match RNG whose shuffle puts the deck in ``order`` (front of the list = dealt first)."""

    def __init__(self, order: Sequence[int]) -> None:
        super().__init__(0)
        self.order = list(order)

    def shuffle(self, x: MutableSequence[Any], *args: Any, **kwargs: Any) -> None:
        assert sorted(x) == sorted(self.order), "the stacked deck is not the configured deck"
        x[:] = self.order


def deck_order(hands: Sequence[Sequence[int]], set_aside: Sequence[int] = ()) -> list[int]:
    """The deck order that deals ``hands`` (seat by seat) one card at a time from seat 1, the
    dealer's left, followed by the cards that stay undealt."""
    queues = [list(hand) for hand in hands]
    order: list[int] = []
    seat = 1 % len(hands)
    while any(queues):
        assert queues[seat], f"seat {seat} runs out of cards before the deal ends"
        order.append(queues[seat].pop(0))
        seat = (seat + 1) % len(hands)
    return order + list(set_aside)


def stacked(
    hands: Sequence[Sequence[int]], set_aside: Sequence[int] = (), **config: Any
) -> tuple[BelieveState, random.Random]:
    rng = StackedDeck(deck_order(hands, set_aside))
    state = BelieveGame().new_state(BelieveConfig(**config), len(hands), rng, dealer=0)
    for seat, hand in enumerate(hands):
        mine = state.observation(seat).hand
        assert [kind for kind, count in enumerate(mine) for _ in range(count)] == sorted(hand)
    return state, rng


def new_game(
    seats: int = 3, seed: int = 0, dealer: int | None = 0, **config: Any
) -> tuple[BelieveState, random.Random]:
    rng = random.Random(seed)
    return BelieveGame().new_state(BelieveConfig(**config), seats, rng, dealer), rng


def legal(state: BelieveState, action: BelieveAction) -> bool:
    seat = state.to_act()
    return seat is not None and why_illegal(state.observation(seat), action) is None


def play(state: BelieveState, rng: random.Random, actions: Iterable[BelieveAction]) -> list[int]:
    """Apply ``actions`` in order, each checked legal first; return the seat that acted for each."""
    acted = []
    for action in actions:
        seat = state.to_act()
        assert seat is not None, f"game over before {action!r}"
        assert legal(state, action), f"{action!r} not legal for seat {seat}"
        if not isinstance(action, Place):
            assert action in state.legal_actions()
        state.apply(action, rng)
        acted.append(seat)
    return acted


def snapshot(state: BelieveState) -> tuple[object, ...]:
    return (
        state.to_act(),
        state.legal_actions(),
        state.reveal(),
        tuple(state.observation(seat) for seat in range(state.num_seats)),
    )


def expect_illegal(state: BelieveState, rng: random.Random, action: Any, word: str) -> None:
    """``action`` raises IllegalAction whose message mentions ``word``, and changes nothing; so
    does ``check`` (how the runner checks an action that is not listed), with the same message."""
    before, rng_before = snapshot(state), rng.getstate()
    with pytest.raises(IllegalAction) as checked:
        state.check(action)
    with pytest.raises(IllegalAction) as info:
        state.apply(action, rng)
    assert word in str(info.value).lower(), str(info.value)
    assert str(checked.value) == str(info.value)
    assert snapshot(state) == before
    assert rng.getstate() == rng_before


def counts(state: BelieveState) -> tuple[int, ...]:
    return state.observation(0).hand_counts


def places(state: BelieveState) -> tuple[int, ...]:
    return state.observation(0).places


def last_check(state: BelieveState) -> Check:
    return state.observation(0).checks[-1]


def P(*cards: int, claim: int) -> Place:  # reads like the rules: P(0, 0, claim=0)
    return Place(tuple(cards), claim)


# Three players, 3 kinds x 3 copies: three cards each.
THREE: dict[str, Any] = {"kinds": 3, "copies": 3}
HANDS3 = [[0, 0, 1], [1, 1, 2], [2, 2, 0]]


# --- players, deck and configuration ---------------------------------------------------------


@pytest.mark.parametrize("seats", range(2, 9))
def test_two_to_eight_players_may_play(seats: int) -> None:
    state, _ = new_game(seats)
    assert len(counts(state)) == seats
    assert state.to_act() == 0


@pytest.mark.parametrize("seats", [0, 1, 9, 10])
def test_other_player_counts_are_refused(seats: int) -> None:
    with pytest.raises(BadConfig):
        BelieveGame().new_state(BelieveConfig(), seats, random.Random(0))


@pytest.mark.parametrize(
    "config",
    [
        {"kinds": 0},
        {"kinds": 9},
        {"copies": 0},
        {"action_cap": 0},
        {"kinds": 1, "copies": 2},  # 2 cards for 3 players
    ],
)
def test_bad_configurations_are_refused(config: dict[str, Any]) -> None:
    with pytest.raises(BadConfig):
        BelieveGame().new_state(BelieveConfig(**config), 3, random.Random(0))


def test_config_fields_match_the_rules_page_and_from_dict_checks_them() -> None:
    assert BelieveConfig().to_dict() == {"kinds": 8, "copies": 8, "deal_leftovers": False, "action_cap": 1000}
    assert BelieveConfig.from_dict({"deal_leftovers": True}).deal_leftovers is True
    with pytest.raises(BadConfig):
        BelieveConfig.from_dict({"dealer": 1})
    with pytest.raises(BadConfig):
        BelieveConfig.from_dict({"deal_leftovers": 1})


def test_the_default_deck_is_eight_kinds_of_eight_cards_in_the_named_order() -> None:
    assert KIND_NAMES == ("mushroom", "berry", "leaf", "acorn", "flower", "apple", "pear", "cherry")
    state, _ = new_game(4)
    reveal = state.reveal()
    cards = [card for hand in reveal["hands"] for card in hand]
    assert sorted(cards) == [kind for kind in range(8) for _ in range(8)]
    assert state.observation(2).kinds == 8
    assert state.observation(2).copies == 8


# --- the deal ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seats", "each", "aside"),
    [(2, 32, 0), (3, 21, 1), (4, 16, 0), (5, 12, 4), (6, 10, 4), (7, 9, 1), (8, 8, 0)],
)
def test_even_deal_and_leftovers_set_aside_face_down(seats: int, each: int, aside: int) -> None:
    state, _ = new_game(seats, seed=seats)
    assert counts(state) == (each,) * seats
    for seat in range(seats):
        obs = state.observation(seat)
        assert obs.set_aside == aside
        assert sum(obs.hand) == each
    assert len(state.reveal()["set_aside"]) == aside


def test_the_deal_goes_one_card_at_a_time_clockwise_from_the_dealers_left() -> None:
    # The deck, front first: 0 1 2 3 4 5 (6 kinds x 1 copy).
    state = BelieveGame().new_state(BelieveConfig(kinds=6, copies=1), 3, StackedDeck(range(6)), dealer=0)
    assert state.observation(1).hand == (1, 0, 0, 1, 0, 0)  # cards 0 and 3
    assert state.observation(2).hand == (0, 1, 0, 0, 1, 0)  # cards 1 and 4
    assert state.observation(0).hand == (0, 0, 1, 0, 0, 1)  # the dealer gets cards 2 and 5


def test_leftovers_set_aside_are_the_undealt_cards_and_nobody_sees_them() -> None:
    state = BelieveGame().new_state(BelieveConfig(kinds=5, copies=1), 3, StackedDeck(range(5)), dealer=0)
    assert counts(state) == (1, 1, 1)
    assert state.reveal()["set_aside"] == [3, 4]
    for seat in range(3):
        obs = state.observation(seat)
        assert obs.set_aside == 2
        assert obs.hand[3] == obs.hand[4] == 0
        assert obs.taken == ()


def test_with_deal_leftovers_the_extras_go_one_each_from_the_dealers_left() -> None:
    config = BelieveConfig(kinds=5, copies=1, deal_leftovers=True)
    state = BelieveGame().new_state(config, 3, StackedDeck(range(5)), dealer=0)
    assert counts(state) == (1, 2, 2)  # seats 1 and 2 (left of the dealer) get the extras
    assert state.observation(1).hand == (1, 0, 0, 1, 0)
    assert state.observation(2).hand == (0, 1, 0, 0, 1)
    assert state.observation(0).set_aside == 0
    assert state.reveal()["set_aside"] == []
    # The default deck with 3 players: 64 = 3 x 21 + 1, the extra card to seat 1.
    state, _ = new_game(3, deal_leftovers=True)
    assert counts(state) == (21, 22, 21)


def test_the_deal_is_shuffled_with_the_match_rng() -> None:
    hands = [new_game(4, seed=seed)[0].observation(0).hand for seed in range(5)]
    assert len(set(hands)) > 1
    assert new_game(4, seed=3)[0].reveal() == new_game(4, seed=3)[0].reveal()


# --- who deals: the seed, then the loser ------------------------------------------------------


def test_a_match_s_first_dealer_comes_from_the_seed_and_starts() -> None:
    dealers = []
    for seed in range(40):
        state, _ = new_game(4, seed=seed, dealer=None)
        assert state.to_act() == state.observation(1).dealer
        assert new_game(4, seed=seed, dealer=None)[0].observation(2).dealer == state.to_act()
        # The dealer is drawn after the shuffle: the same cards as any other dealer's game.
        assert state.reveal() == new_game(4, seed=seed)[0].reveal()
        dealers.append(state.to_act())
    assert set(dealers) == {0, 1, 2, 3}


@pytest.mark.parametrize("dealer", range(4))
def test_the_given_dealer_deals_and_starts_and_the_even_deal_is_the_same_for_every_dealer(
    dealer: int,
) -> None:
    state, _ = new_game(4, seed=5, dealer=dealer)
    assert state.to_act() == dealer and state.observation(0).dealer == dealer
    assert state.reveal()["hands"] == new_game(4, seed=5, dealer=0)[0].reveal()["hands"]


def test_with_deal_leftovers_the_extras_go_from_the_left_of_whoever_deals() -> None:
    config = BelieveConfig(kinds=5, copies=1, deal_leftovers=True)
    state = BelieveGame().new_state(config, 3, StackedDeck(range(5)), dealer=1)
    assert counts(state) == (2, 1, 2)  # the even deal from seat 1, then extras to seats 2 and 0
    assert state.observation(1).hand == (1, 0, 0, 0, 0)
    assert state.observation(2).hand == (0, 1, 0, 1, 0)
    assert state.observation(0).hand == (0, 0, 1, 0, 1)
    assert state.to_act() == 1


@pytest.mark.parametrize("dealer", [-1, 3, 7])
def test_a_dealer_that_is_not_a_seat_is_refused(dealer: int) -> None:
    with pytest.raises(BadConfig, match="dealer"):
        BelieveGame().new_state(BelieveConfig(), 3, random.Random(0), dealer)


@pytest.mark.parametrize(
    ("ranks", "dealer", "next_dealer"),
    [
        ((0, 1, 2), 0, 2),  # the loser deals next time
        ((2, 0, 1), 1, 0),
        ((0, 0, 2, 3), 2, 3),
        ((0, 1, 1), 0, 1),  # several share the last place: the first clockwise from the dealer
        ((0, 1, 1), 2, 2),  # ... the dealer included
        ((1, 0, 1), 2, 2),
        ((0, 0), 1, 1),
    ],
)
def test_the_loser_deals_next_time(ranks: tuple[int, ...], dealer: int, next_dealer: int) -> None:
    result = GameResult(ranks, (0.0,) * len(ranks), {"dealer": dealer})
    assert BelieveGame().next_dealer(result) == next_dealer


def test_a_finished_game_names_its_dealer_and_its_loser_deals_next() -> None:
    state, rng = stacked([[0, 0], [0, 0], [1, 1], [1, 1]], kinds=2, copies=4)
    play(state, rng, [P(0, 0, claim=0), P(0, 0, claim=0), BELIEVE])
    play(state, rng, [P(1, 1, claim=1), BELIEVE])
    result = state.result()
    assert result.detail["dealer"] == 0 and result.detail["loser"] == 3
    assert BelieveGame().next_dealer(result) == 3


# --- the first turn and opening a pile -------------------------------------------------------


def test_the_dealer_starts_with_no_pile_open_and_nothing_to_call() -> None:
    state, rng = new_game(5)
    obs = state.observation(3)
    assert obs.dealer == 0 and obs.to_act == 0 == state.to_act()
    assert not obs.pile_open and obs.pile_kind == -1 and obs.claims == ()
    assert state.legal_actions() == []  # placements are not listed; no call is possible
    expect_illegal(state, rng, BELIEVE, "no pile")
    expect_illegal(state, rng, DISBELIEVE, "no pile")
    assert place_rule(state.observation(0)) == PlaceRule(8, False)
    assert place_rule(state.observation(1)) == PlaceRule(0, False)  # not its turn


def test_opening_places_one_to_eight_cards() -> None:
    state, rng = new_game(3)
    hand = state.observation(0).hand
    cards = state.observation(0).my_cards
    expect_illegal(state, rng, Place((), 0), "place 1..8")
    expect_illegal(state, rng, Place(cards[:9], 0), "place 1..8")
    kind = min(range(8), key=lambda kind: hand[kind])
    expect_illegal(state, rng, Place((kind,) * (hand[kind] + 1), kind), "hold")
    play(state, rng, [Place(cards[:8], 3)])
    obs = state.observation(2)
    assert obs.pile_open and obs.pile_kind == 3
    assert obs.claims == (Claim(0, 8),)  # the count is public, and true
    assert obs.hand_counts == (13, 21, 21)
    assert state.to_act() == 1  # the turn passes left


def test_an_opening_claim_may_name_any_kind_even_one_not_held() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(0, 1, claim=2)])  # seat 0 holds no leaf
    assert state.observation(1).pile_kind == 2


def test_a_small_hand_places_at_most_its_size() -> None:
    state, rng = stacked(HANDS3, **THREE)
    assert place_rule(state.observation(0)) == PlaceRule(3, False)
    expect_illegal(state, rng, P(0, 0, 1, 1, claim=0), "place 1..3")
    expect_illegal(state, rng, P(0, 0, 0, claim=0), "hold 2")


def test_claims_are_kinds_of_the_deck() -> None:
    state, rng = stacked(HANDS3, **THREE)
    expect_illegal(state, rng, P(0, claim=3), "claim a kind")
    expect_illegal(state, rng, P(0, claim=-1), "claim a kind")
    expect_illegal(state, rng, P(5, claim=0), "kind numbers")


def test_the_placed_cards_are_hidden_from_every_other_seat() -> None:
    views = {}
    for cards in ((0, 0), (0, 1)):
        state, rng = stacked(HANDS3, **THREE)
        play(state, rng, [Place(cards, 0)])
        views[cards] = [state.observation(seat) for seat in range(3)]
    assert views[(0, 0)][1] == views[(0, 1)][1]
    assert views[(0, 0)][2] == views[(0, 1)][2]
    assert views[(0, 0)][0] != views[(0, 1)][0]  # the placer's own hand differs


# --- an open pile ----------------------------------------------------------------------------


def test_with_a_pile_open_the_player_may_add_believe_or_disbelieve() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(0, claim=0)])
    assert state.legal_actions() == CALLS
    assert place_rule(state.observation(1)) == PlaceRule(3, True)
    for call in CALLS:
        trial = state.clone()
        trial.apply(call, rng)
        assert len(trial.observation(0).checks) == 1


def test_added_cards_must_be_claimed_as_the_piles_kind_and_the_turn_passes_left() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(0, claim=0)])
    expect_illegal(state, rng, P(1, claim=1), "pile's kind")  # a true claim, but of another kind
    assert play(state, rng, [P(1, 1, claim=0), P(2, claim=0)]) == [1, 2]
    obs = state.observation(0)
    assert obs.claims == (Claim(0, 1), Claim(1, 2), Claim(2, 1))
    assert obs.pile_kind == 0 and obs.pile_size == 4
    assert state.to_act() == 0


def test_place_keeps_its_cards_sorted() -> None:
    assert Place((2, 0, 2), 1) == Place((0, 2, 2), 1)
    assert Place((2, 0, 2), 1).cards == (0, 2, 2)


# --- the four resolutions --------------------------------------------------------------------


def test_believe_and_true_the_pile_leaves_the_game_and_the_caller_starts() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(0, 0, claim=0), BELIEVE])
    assert last_check(state) == Check(1, True, 0, 0, (0, 0), -1, 2)
    assert last_check(state).truthful
    assert counts(state) == (1, 3, 3)
    assert state.reveal()["discard"] == [{"seat": 0, "cards": [0, 0], "revealed": True}]
    obs = state.observation(2)
    assert not obs.pile_open and obs.discarded == 2
    assert state.to_act() == 1  # the caller


def test_believe_and_false_the_caller_takes_the_pile_and_the_player_on_its_left_starts() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(1, claim=0), BELIEVE])
    assert last_check(state) == Check(1, True, 0, 0, (1,), 1, 1)
    assert not last_check(state).truthful
    assert counts(state) == (2, 4, 3)
    assert state.observation(1).taken == ((1,),)
    assert state.observation(1).hand == (0, 3, 1)
    assert state.to_act() == 2


def test_disbelieve_and_false_the_liar_takes_the_pile_and_the_caller_starts() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(0, claim=0), P(1, 1, claim=0), DISBELIEVE])  # seat 1 lies
    assert last_check(state) == Check(2, False, 1, 0, (1, 1), 1, 3)
    assert counts(state) == (2, 4, 3)  # the whole pile, seat 0's card too
    assert state.observation(1).taken == ((0, 1, 1),)
    assert state.observation(1).hand == (1, 2, 1)
    assert state.to_act() == 2


def test_disbelieve_and_true_the_caller_takes_the_pile_and_the_player_on_its_left_starts() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(0, 0, claim=0), DISBELIEVE])
    assert last_check(state) == Check(1, False, 0, 0, (0, 0), 1, 2)
    assert counts(state) == (1, 5, 3)
    assert state.observation(1).taken == ((0, 0),)
    assert state.to_act() == 2


def test_only_the_last_placement_is_checked_and_only_the_taker_sees_the_rest() -> None:
    views = {}
    for first in (1, 2):  # seat 0 lies with a berry or with a leaf
        state, rng = stacked([[1, 1, 2], [0, 0, 2], [0, 1, 2]], **THREE)
        play(state, rng, [P(first, claim=0), P(0, 0, claim=0), DISBELIEVE])
        check = last_check(state)
        assert check == Check(2, False, 1, 0, (0, 0), 2, 3)  # the earlier lie goes unpunished
        assert state.observation(2).taken == (tuple(sorted((first, 0, 0))),)
        assert state.to_act() == 0
        views[first] = [state.observation(seat) for seat in range(3)]
    assert views[1][1] == views[2][1]  # seat 1 never learns what seat 0 placed
    assert views[1][2] != views[2][2]  # the taker sees the whole pile


def test_every_call_is_public_history() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(0, 0, claim=0), BELIEVE, P(1, claim=2), DISBELIEVE])
    expected = (Check(1, True, 0, 0, (0, 0), -1, 2), Check(2, False, 1, 2, (1,), 1, 1))
    for seat in range(3):
        assert state.observation(seat).checks == expected
    assert state.to_act() == 2


# --- running out of cards --------------------------------------------------------------------

# Three players each holding three of one kind.
MONO3 = [[0, 0, 0], [1, 1, 1], [2, 2, 2]]


def _emptied_and_back() -> tuple[BelieveState, random.Random]:
    """Seat 0 places its last cards; seats 1 and 2 add lies; seat 0's turn comes again."""
    state, rng = stacked(MONO3, **THREE)
    play(state, rng, [P(0, 0, 0, claim=0), P(1, claim=0), P(2, claim=0)])
    return state, rng


def test_a_player_who_placed_their_last_cards_stays_in_and_may_only_call() -> None:
    state, rng = _emptied_and_back()
    assert state.to_act() == 0
    obs = state.observation(0)
    assert obs.hand_counts == (0, 2, 2) and obs.places == (0, 0, 0)
    assert state.legal_actions() == CALLS
    assert place_rule(obs) == PlaceRule(0, True)
    expect_illegal(state, rng, P(0, claim=0), "no cards")


def test_an_empty_handed_caller_who_calls_wrong_takes_the_pile_and_stays_in() -> None:
    state, rng = _emptied_and_back()
    play(state, rng, [BELIEVE])  # seat 2's leaf was a lie
    assert counts(state) == (5, 2, 2)
    assert places(state) == (0, 0, 0)
    assert state.observation(0).taken == ((0, 0, 0, 1, 2),)
    assert state.to_act() == 1


def test_an_empty_handed_caller_who_calls_right_leaves_and_the_next_player_starts() -> None:
    state, rng = _emptied_and_back()
    play(state, rng, [DISBELIEVE])  # the liar, seat 2, takes the pile
    assert counts(state) == (0, 2, 7)
    assert places(state) == (1, 0, 0)
    # The caller starts, but it has left: the next player clockwise starts instead.
    assert state.to_act() == 1
    assert play(state, rng, [P(1, claim=1), BELIEVE, P(1, claim=1)]) == [1, 2, 2]
    assert state.to_act() == 1  # seat 0 is skipped by the rotation


def test_a_player_whose_last_cards_are_checked_leaves_after_the_check() -> None:
    state, rng = stacked(MONO3, **THREE)
    play(state, rng, [P(0, 0, 0, claim=0)])
    assert places(state) == (0, 0, 0)  # not yet: the pile is not resolved
    play(state, rng, [BELIEVE])
    assert places(state) == (1, 0, 0)
    assert state.to_act() == 1


def test_players_leaving_at_the_same_resolution_share_a_place() -> None:
    state, rng = stacked([[0, 0], [0, 0], [1, 1], [1, 1]], kinds=2, copies=4)
    play(state, rng, [P(0, 0, claim=0), P(0, 0, claim=0), BELIEVE])
    assert places(state) == (1, 1, 0, 0)
    assert state.to_act() == 2
    assert play(state, rng, [P(1, claim=1), P(1, 1, claim=1), P(1, claim=1)]) == [2, 3, 2]
    play(state, rng, [BELIEVE])  # seat 3 has no cards: it calls on seat 2's placement
    assert state.to_act() is None
    assert places(state) == (1, 1, 3, 3)
    result = state.result()
    assert result.ranks == (0, 0, 2, 2)  # no loser: seats 2 and 3 emptied their hands together
    assert result.detail["loser"] == -1


def test_the_last_player_holding_cards_loses() -> None:
    state, rng = stacked([[0, 0], [0, 0], [1, 1], [1, 1]], kinds=2, copies=4)
    play(state, rng, [P(0, 0, claim=0), P(0, 0, claim=0), BELIEVE])
    play(state, rng, [P(1, 1, claim=1), BELIEVE])  # seat 2 out, seat 3 still holds two cards
    assert state.to_act() is None
    assert state.legal_actions() == []
    assert places(state) == (1, 1, 3, 4)
    result = state.result()
    assert result.ranks == (0, 0, 2, 3)
    assert result.scores == (2.0, 2.0, 1.0, 0.0)
    assert result.detail["loser"] == 3 and result.detail["capped"] is False
    expect_illegal(state, rng, BELIEVE, "over")
    expect_illegal(state, rng, P(1, claim=1), "over")
    assert state.observation(3).to_act == -1


def test_the_player_left_of_the_caller_skips_players_who_left() -> None:
    state, rng = stacked([[0, 0], [1, 1], [0, 1], [0, 1]], kinds=2, copies=4)
    play(state, rng, [P(0, 0, claim=0), BELIEVE])  # seat 0 leaves, seat 1 starts
    assert places(state) == (1, 0, 0, 0) and state.to_act() == 1
    assert play(state, rng, [P(1, claim=1), P(1, claim=1), DISBELIEVE]) == [1, 2, 3]
    assert last_check(state).taker == 3  # true: the caller takes the pile
    assert state.to_act() == 1  # seat 0, left of the caller, has left: seat 1 starts


def test_nobody_left_holding_cards_ends_the_game_with_no_loser() -> None:
    state, rng = stacked([[0, 0], [0, 0]], kinds=1, copies=4)
    play(state, rng, [P(0, 0, claim=0), P(0, 0, claim=0), BELIEVE])
    assert state.to_act() is None
    assert places(state) == (1, 1)
    result = state.result()
    assert result.ranks == (0, 0) and result.scores == (0.0, 0.0)
    assert result.detail["loser"] == -1


def test_nobody_left_after_someone_left_shares_the_last_place_reached() -> None:
    state, rng = stacked([[0, 0], [0, 0], [0, 0]], kinds=1, copies=6)
    play(state, rng, [P(0, claim=0), P(0, 0, claim=0), BELIEVE])  # seat 1 out first
    assert places(state) == (0, 1, 0) and state.to_act() == 2
    assert play(state, rng, [P(0, 0, claim=0), P(0, claim=0), BELIEVE]) == [2, 0, 2]
    assert state.to_act() is None
    assert places(state) == (2, 1, 2)
    result = state.result()
    assert result.ranks == (1, 0, 1)
    assert result.scores == (0.0, 2.0, 0.0)
    assert result.detail["loser"] == -1


# --- the action cap --------------------------------------------------------------------------


def test_the_action_cap_ranks_by_cards_held_fewer_first() -> None:
    assert BelieveConfig().action_cap == 1000
    state, rng = stacked(HANDS3, action_cap=3, **THREE)
    play(state, rng, [P(0, 0, claim=0), BELIEVE, P(1, claim=1)])
    assert state.to_act() is None and state.legal_actions() == []
    expect_illegal(state, rng, BELIEVE, "over")
    assert counts(state) == (1, 2, 3)
    result = state.result()
    assert result.ranks == (0, 1, 2)
    assert result.scores == (2.0, 1.0, 0.0)
    assert result.detail["capped"] is True and result.detail["loser"] == -1


def test_at_the_cap_equal_hands_share_and_players_who_left_rank_first() -> None:
    state, rng = stacked(HANDS3, action_cap=1, **THREE)
    play(state, rng, [P(0, claim=0)])
    assert state.result().ranks == (0, 1, 1)
    state, rng = stacked(MONO3, action_cap=4, **THREE)
    # Seat 0 leaves; seat 1 empties its hand onto an open pile: 0 cards, but still in.
    play(state, rng, [P(0, 0, 0, claim=0), BELIEVE, P(1, 1, 1, claim=1)])
    play(state, rng, [P(2, claim=1)])
    assert counts(state) == (0, 0, 2) and places(state) == (1, 0, 0)
    assert state.result().ranks == (0, 1, 2)


def test_a_game_that_ends_on_the_cap_th_action_keeps_its_normal_result() -> None:
    state, rng = stacked([[0, 0], [0, 0]], kinds=1, copies=4, action_cap=3)
    play(state, rng, [P(0, 0, claim=0), P(0, 0, claim=0), BELIEVE])
    assert state.result().detail["capped"] is False


# --- observations and illegal actions --------------------------------------------------------


def test_what_a_seat_observes() -> None:
    state, rng = stacked(HANDS3, **THREE)
    play(state, rng, [P(1, claim=0), BELIEVE, P(2, claim=1)])
    obs = state.observation(1)
    assert obs.seat == 1 and obs.to_act == 0 and obs.dealer == 0
    assert obs.hand == (0, 3, 1)  # its own hand: 1 1 2, and the berry it took
    assert obs.hand_counts == (2, 4, 2)
    assert obs.places == (0, 0, 0)
    assert obs.pile_open and obs.pile_kind == 1 and obs.claims == (Claim(2, 1),)
    assert obs.checks == (Check(1, True, 0, 0, (1,), 1, 1),)
    assert obs.taken == ((1,),)
    assert obs.set_aside == 0
    assert state.observation(0).taken == () and state.observation(2).taken == ()


def test_illegal_actions_raise_and_change_nothing() -> None:
    state, rng = stacked(HANDS3, **THREE)
    expect_illegal(state, rng, "believe", "not a believe action")
    expect_illegal(state, rng, Place(0, 0), "tuple")  # type: ignore[arg-type]
    expect_illegal(state, rng, Place((0,), True), "claim a kind")
    play(state, rng, [P(0, claim=0)])
    expect_illegal(state, rng, P(2, claim=2), "pile's kind")
    expect_illegal(state, rng, P(0, claim=0), "hold 0")


def test_the_same_seed_and_actions_replay_exactly() -> None:
    runs = []
    for _ in range(2):
        state, rng = new_game(4, seed=11)
        chooser = random.Random(5)
        for _ in range(40):
            state.apply(state.random_action(chooser), rng)
        runs.append(snapshot(state))
    assert runs[0] == runs[1]
