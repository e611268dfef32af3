"""Scenario tests for Edible / Inedible, one or more per rule of RULES.md section 2.

Written from the rules, not from the engine: each test drives the public API
(``new_state``, ``apply``, ``legal_actions``, ``to_act``, ``observation``, ``result``,
``clone``) into a scenario and checks what the rules say must happen.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

import pytest

from arena.games.base import BadConfig, IllegalAction
from arena.games.edible import (
    PASS,
    Bid,
    Card,
    Discard,
    Edible,
    EdibleAction,
    EdibleConfig,
    EdibleState,
    Flip,
    NameFirst,
    Phase,
    PickBlind,
    Place,
    Turned,
)

S, B = Card.SAUSAGE, Card.BOOT
PS, PB = Place(S), Place(B)


# --- helpers -------------------------------------------------------------------------------


def new_game(seats: int = 3, seed: int = 0, **config: int) -> tuple[EdibleState, random.Random]:
    rng = random.Random(seed)
    return Edible().new_state(EdibleConfig(**config), seats, rng), rng


def play(state: EdibleState, rng: random.Random, actions: Iterable[EdibleAction]) -> list[int]:
    """Apply ``actions`` in order; return the seat that acted for each one."""
    acted = []
    for action in actions:
        seat = state.to_act()
        assert seat is not None, f"game over before {action!r}"
        assert action in state.legal_actions(), (
            f"{action!r} not legal for seat {seat} in {state.observation(seat).phase}"
        )
        state.apply(action, rng)
        acted.append(seat)
    return acted


def snapshot(state: EdibleState) -> tuple[object, ...]:
    return (
        state.to_act(),
        state.legal_actions(),
        state.reveal(),
        tuple(state.observation(seat) for seat in range(state.num_seats)),
    )


def expect_illegal(state: EdibleState, rng: random.Random, action: EdibleAction, word: str) -> None:
    """``action`` raises IllegalAction whose message mentions ``word``, and changes nothing."""
    before, rng_before = snapshot(state), rng.getstate()
    with pytest.raises(IllegalAction) as info:
        state.apply(action, rng)
    assert word in str(info.value).lower(), str(info.value)
    assert snapshot(state) == before
    assert rng.getstate() == rng_before


def phase(state: EdibleState) -> Phase:
    return state.observation(0).phase


def hand_counts(state: EdibleState) -> list[int]:
    return [view.hand_count for view in state.observation(0).seats]


def mat_counts(state: EdibleState) -> list[int]:
    return [view.mat_count for view in state.observation(0).seats]


def blind_positions(state: EdibleState) -> dict[int, Card]:
    """In BLIND_PICK: which card each position takes (found by trying each on a clone)."""
    challenger = state.observation(0).high_bidder
    found = {}
    for action in state.legal_actions():
        assert isinstance(action, PickBlind)
        trial = state.clone()
        trial.apply(action, random.Random(0))
        found[action.position] = trial.observation(challenger).my_lost[-1]
    return found


# --- players and configuration -------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_two_to_six_players_may_play(seats: int) -> None:
    state, rng = new_game(seats)
    assert len(state.observation(0).seats) == seats
    assert hand_counts(state) == [4] * seats  # 3 sausages + 1 boot each
    assert play(state, rng, [PS] * seats) == list(range(seats))
    assert phase(state) is Phase.ADD_OR_BID


@pytest.mark.parametrize("seats", [0, 1, 7, 8])
def test_other_player_counts_are_refused(seats: int) -> None:
    with pytest.raises(BadConfig):
        Edible().new_state(EdibleConfig(), seats, random.Random(0))


def test_each_player_starts_with_three_sausages_and_one_boot_on_side_one() -> None:
    state, _ = new_game(4)
    for seat in range(4):
        obs = state.observation(seat)
        assert (obs.hand_sausages, obs.hand_boots) == (3, 1)
        assert obs.my_mat == () and obs.my_lost == ()
        assert all(view.successes == 0 and view.active for view in obs.seats)


def test_config_card_counts_and_successes_to_win() -> None:
    state, rng = new_game(2, sausages=1, boots=2, successes_to_win=3)
    obs = state.observation(1)
    assert (obs.hand_sausages, obs.hand_boots) == (1, 2)
    for _ in range(2):  # two successes are not enough when three are needed
        play(state, rng, [PS, PS, Bid(1), PASS])
    assert state.observation(0).seats[0].successes == 2
    assert state.to_act() == 0
    play(state, rng, [PS, PS, Bid(1), PASS])
    assert state.to_act() is None
    assert state.result().ranks == (0, 1)


# --- step 1 --------------------------------------------------------------------------------


def test_step1_every_active_seat_places_one_card_in_order_from_the_first_player() -> None:
    state, rng = new_game(4)
    obs = state.observation(0)
    assert obs.phase is Phase.PLACE and obs.first_player == 0
    assert set(state.legal_actions()) == {PS, PB}  # no bid during step 1
    assert play(state, rng, [PS, PB, PS, PS]) == [0, 1, 2, 3]
    assert mat_counts(state) == [1, 1, 1, 1]
    assert hand_counts(state) == [3, 3, 3, 3]
    assert phase(state) is Phase.ADD_OR_BID
    assert state.to_act() == 0


def test_step1_choice_is_hidden_from_every_other_seat() -> None:
    views = {}
    for card in (S, B):
        state, rng = new_game(3)
        play(state, rng, [Place(card), PS, PS])
        views[card] = [state.observation(seat) for seat in range(3)]
    assert views[S][1] == views[B][1]
    assert views[S][2] == views[B][2]
    assert views[S][0].my_mat == (S,) and views[B][0].my_mat == (B,)
    assert views[B][0].hand_boots == 0 and views[S][0].hand_boots == 1


# --- step 2: adding and bidding ------------------------------------------------------------


def test_step2_adding_puts_a_card_on_top_and_the_turn_passes_clockwise() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS])
    assert PASS not in state.legal_actions()  # before a bid: add or bid, no pass
    assert play(state, rng, [PB, PS, PS, PS]) == [0, 1, 2, 0]
    assert state.observation(0).my_mat == (S, B, S)  # bottom to top
    assert mat_counts(state) == [3, 2, 2]
    assert state.to_act() == 1


def test_a_seat_with_no_cards_in_hand_must_bid() -> None:
    state, rng = new_game(2)
    play(state, rng, [PS, PS, PS, PS, PS, PS, PB, PB])  # step 1, then everything added
    assert hand_counts(state) == [0, 0]
    assert state.to_act() == 0
    assert state.legal_actions() == [Bid(n) for n in range(1, 9)]
    expect_illegal(state, rng, PS, "hold")
    expect_illegal(state, rng, PASS, "bid")


def test_bid_is_between_one_and_the_total_on_all_mats() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS, PS])  # 4 cards on mats, seat 1 to act
    assert [a for a in state.legal_actions() if isinstance(a, Bid)] == [Bid(n) for n in range(1, 5)]
    expect_illegal(state, rng, Bid(0), "bid")
    expect_illegal(state, rng, Bid(5), "bid")
    play(state, rng, [Bid(4)])
    assert state.observation(2).high_bid == 4


# --- the auction ---------------------------------------------------------------------------


def test_raise_must_be_strictly_higher_and_may_jump() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS, PS, PS, PS, Bid(2)])  # 6 on mats
    assert phase(state) is Phase.AUCTION and state.to_act() == 1
    assert state.legal_actions() == [PASS, Bid(3), Bid(4), Bid(5), Bid(6)]
    expect_illegal(state, rng, Bid(2), "bid")
    expect_illegal(state, rng, Bid(1), "bid")
    expect_illegal(state, rng, Bid(7), "bid")
    expect_illegal(state, rng, PS, "bid")  # no adding once the auction is open
    play(state, rng, [Bid(5)])  # a jump
    obs = state.observation(0)
    assert (obs.high_bid, obs.high_bidder) == (5, 1)
    assert state.to_act() == 2


def test_passing_is_final_and_a_passed_seat_is_never_asked_again() -> None:
    state, rng = new_game(4)
    play(state, rng, [PS] * 4)
    assert play(state, rng, [Bid(1), PASS, Bid(2), PASS, Bid(3)]) == [0, 1, 2, 3, 0]
    assert state.to_act() == 2  # seats 1 and 3 passed: skipped
    obs = state.observation(1)
    assert [view.passed for view in obs.seats] == [False, True, False, True]
    assert obs.auction == ((0, 1), (1, 0), (2, 2), (3, 0), (0, 3))
    play(state, rng, [Bid(4)])
    assert phase(state) is Phase.ATTEMPT  # 4 is the total


def test_auction_ends_when_all_but_one_passed_and_the_highest_bidder_challenges() -> None:
    state, rng = new_game(4)
    play(state, rng, [PS] * 4 + [PS] * 3)  # seats 0..2 add a card: 7 on mats
    assert play(state, rng, [Bid(3), Bid(5), PASS, PASS]) == [3, 0, 1, 2]
    assert phase(state) is Phase.AUCTION and state.to_act() == 3
    play(state, rng, [PASS])  # the opening bidder passes too
    obs = state.observation(2)
    assert obs.phase is Phase.ATTEMPT
    assert (obs.high_bidder, obs.high_bid) == (0, 5)
    assert state.to_act() == 0


def test_auction_ends_at_once_when_someone_bids_the_total() -> None:
    state, rng = new_game(4)
    play(state, rng, [PS] * 4 + [Bid(1), Bid(4)])  # seat 1 bids the total
    obs = state.observation(3)
    assert obs.phase is Phase.ATTEMPT  # seats 2 and 3 were never asked
    assert (obs.high_bidder, obs.high_bid) == (1, 4)
    assert state.to_act() == 1
    assert obs.auction == ((0, 1), (1, 4))


def test_an_opening_bid_of_the_total_starts_the_attempt_at_once() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS, Bid(3)])
    assert phase(state) is Phase.ATTEMPT and state.to_act() == 0
    assert state.observation(1).auction == ((0, 3),)


# --- step 3: the attempt -------------------------------------------------------------------


def test_challenger_first_turns_all_own_cards_then_chooses_any_opponent_card() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS, PS, PS, PS, Bid(4), PASS, PASS])
    obs = state.observation(2)
    assert obs.phase is Phase.ATTEMPT and state.to_act() == 0
    assert obs.turned == (Turned(0, 1, S), Turned(0, 0, S))  # own cards, top down
    assert set(state.legal_actions()) == {Flip(1, 0), Flip(1, 1), Flip(2, 0), Flip(2, 1)}
    expect_illegal(state, rng, Flip(0, 0), "opponent")  # own cards are not chosen
    play(state, rng, [Flip(2, 0)])  # a bottom card
    assert state.observation(1).turned[-1] == Turned(2, 0, S)
    expect_illegal(state, rng, Flip(2, 0), "face up")
    assert set(state.legal_actions()) == {Flip(1, 0), Flip(1, 1), Flip(2, 1)}


def test_challenger_turns_only_bid_many_own_cards_from_the_top_when_the_bid_is_smaller() -> None:
    state, rng = new_game(3)
    # Seat 0's mat, bottom to top: boot, sausage, sausage.
    play(state, rng, [PB, PS, PS, PS, PS, PS, PS, PS, PS, Bid(2), PASS, PASS])
    obs = state.observation(1)
    assert obs.previous_round is not None
    assert obs.previous_round.turned == (Turned(0, 2, S), Turned(0, 1, S))
    assert obs.previous_round.success  # the boot at the bottom was never turned
    assert obs.seats[0].successes == 1


def test_seed_worked_example_any_face_down_card_of_a_mat_and_not_all_of_it() -> None:
    state, rng = new_game(4)
    # Mats (bottom to top): 0: S S, 1: B S, 2: S B, 3: S.
    play(state, rng, [PS, PB, PS, PS, PS, PS, PB])
    play(state, rng, [Bid(3), Bid(5), PASS, PASS, PASS])
    assert state.observation(0).turned == (Turned(0, 1, S), Turned(0, 0, S))
    play(state, rng, [Flip(1, 1)])  # top card of seat 1
    play(state, rng, [Flip(2, 0)])  # bottom card of seat 2, under its boot
    assert phase(state) is Phase.ATTEMPT
    play(state, rng, [Flip(3, 0)])
    obs = state.observation(3)
    assert obs.previous_round is not None and obs.previous_round.success
    assert obs.previous_round.turned[2:] == (Turned(1, 1, S), Turned(2, 0, S), Turned(3, 0, S))
    assert obs.seats[0].successes == 1


def test_unturned_opponent_cards_stay_hidden_during_the_attempt() -> None:
    views = {}
    for card in (S, B):
        state, rng = new_game(4)
        play(state, rng, [PS, Place(card), PS, PS, PS, PS, PS, PS, Bid(4), PASS, PASS, PASS])
        play(state, rng, [Flip(2, 1)])
        views[card] = [state.observation(seat) for seat in range(4)]
    for seat in (0, 2, 3):
        assert views[S][seat] == views[B][seat]
    assert views[S][1].my_mat != views[B][1].my_mat


def test_what_everyone_sees() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS, PS, PB, Bid(4), PASS, PASS, Flip(0, 0)])
    obs = state.observation(1)  # a bystander
    assert [view.hand_count for view in obs.seats] == [2, 2, 3]
    assert [view.mat_count for view in obs.seats] == [2, 2, 1]
    assert obs.auction == ((2, 4), (0, 0), (1, 0))
    assert (obs.high_bid, obs.high_bidder) == (4, 2)
    assert obs.turned == (Turned(2, 0, S), Turned(0, 0, S))
    assert obs.my_mat == (S, B)
    assert obs.hand_sausages == 2 and obs.hand_boots == 0


def test_turning_a_boot_ends_the_attempt_at_once_and_everyone_takes_cards_back() -> None:
    state, rng = new_game(3)
    # Mats: 0: S S, 1: B S, 2: S S; seat 0 bids 5.
    play(state, rng, [PS, PB, PS, PS, PS, PS, Bid(5), PASS, PASS])
    play(state, rng, [Flip(1, 0)])  # the boot at the bottom of seat 1's mat
    obs = state.observation(2)
    assert obs.phase is Phase.BLIND_PICK
    assert state.to_act() == 1  # the boot's owner picks
    assert obs.turned == (Turned(0, 1, S), Turned(0, 0, S), Turned(1, 0, B))  # no more cards turned
    assert mat_counts(state) == [0, 0, 0]
    assert hand_counts(state) == [4, 4, 4]
    assert obs.seats[0].successes == 0


def test_bid_reached_with_sausages_only_is_a_success_and_the_mat_turns() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS, PS, PS, Bid(3), PASS, PASS])  # seat 2 challenges
    play(state, rng, [Flip(0, 1), Flip(1, 0)])
    for seat in range(3):
        obs = state.observation(seat)
        assert [view.successes for view in obs.seats] == [0, 0, 1]
        assert obs.previous_round is not None and obs.previous_round.success
        assert obs.previous_round.challenger == 2
    assert mat_counts(state) == [0, 0, 0] and hand_counts(state) == [4, 4, 4]


def test_two_successes_win_the_game() -> None:
    state, rng = new_game(2)
    play(state, rng, [PS, PS, Bid(1), PASS])
    assert state.to_act() == 0 and state.observation(1).seats[0].successes == 1
    play(state, rng, [PS, PS, Bid(1), PASS])
    assert state.to_act() is None
    assert state.legal_actions() == []
    result = state.result()
    assert result.ranks == (0, 1)
    assert result.scores == (1.0, 0.0)
    expect_illegal(state, rng, PS, "over")


# --- failure -------------------------------------------------------------------------------


def _fail_on_opponent_boot(seed: int = 0) -> tuple[EdibleState, random.Random]:
    """Seat 1 challenges for 2 and turns seat 2's boot: seat 2 picks blind."""
    state, rng = new_game(3, seed=seed)
    play(state, rng, [PS, PS, PB, PS, Bid(2), PASS, PASS, Flip(2, 0)])
    return state, rng


def test_failure_on_an_opponents_boot_the_owner_picks_blind_among_all_challenger_cards() -> None:
    state, rng = _fail_on_opponent_boot()
    obs = state.observation(2)
    assert obs.phase is Phase.BLIND_PICK and state.to_act() == 2
    assert obs.blind_choices == 4  # the challenger's whole hand, mat cards returned
    assert state.legal_actions() == [PickBlind(p) for p in range(4)]
    expect_illegal(state, rng, PickBlind(4), "position")
    expect_illegal(state, rng, Discard(S), "position")
    assert sorted(blind_positions(state).values()) == [B, S, S, S]


def test_blind_pick_order_is_shuffled_with_the_match_rng() -> None:
    boot_positions = set()
    for seed in range(20):
        where = blind_positions(_fail_on_opponent_boot(seed)[0])
        again = blind_positions(_fail_on_opponent_boot(seed)[0])
        assert where == again  # same seed, same shuffle
        boot_positions.add(next(p for p, card in where.items() if card is B))
    assert len(boot_positions) > 1


def test_only_the_challenger_learns_which_card_the_blind_pick_took() -> None:
    state, _ = _fail_on_opponent_boot()
    outcomes = []
    for position in range(4):
        trial = state.clone()
        trial.apply(PickBlind(position), random.Random(0))
        outcomes.append([trial.observation(seat) for seat in range(3)])
    lost = [views[1].my_lost for views in outcomes]
    assert sorted(lost) == [(B,), (S,), (S,), (S,)]
    for views in outcomes:
        assert views[0] == outcomes[0][0]  # a bystander
        assert views[2] == outcomes[0][2]  # the picker
        assert views[0].my_lost == views[2].my_lost == ()
        assert views[1].hand_sausages + views[1].hand_boots == 3
    assert hand_counts(trial) == [4, 3, 4]


def test_failure_on_own_boot_the_challenger_chooses_the_lost_card() -> None:
    state, rng = new_game(3)
    # Seat 0's mat, bottom to top: S B S; it bids 3 and its own boot stops the attempt.
    play(state, rng, [PS, PS, PS, PB, PS, PS, PS, PS, PS, Bid(3), PASS, PASS])
    obs = state.observation(0)
    assert obs.phase is Phase.CHOOSE_LOSS and state.to_act() == 0
    assert obs.turned == (Turned(0, 2, S), Turned(0, 1, B))
    assert set(state.legal_actions()) == {Discard(S), Discard(B)}
    expect_illegal(state, rng, PickBlind(0), "discard")
    outcomes = {}
    for card in (S, B):
        trial = state.clone()
        trial.apply(Discard(card), random.Random(0))
        outcomes[card] = [trial.observation(seat) for seat in range(3)]
    assert outcomes[B][0].my_lost == (B,) and outcomes[B][0].hand_boots == 0
    assert outcomes[S][0].my_lost == (S,) and outcomes[S][0].hand_sausages == 2
    assert outcomes[S][1] == outcomes[B][1] and outcomes[S][2] == outcomes[B][2]
    assert outcomes[B][1].my_lost == ()


def test_discarding_a_kind_not_held_is_illegal() -> None:
    state, rng = new_game(2, sausages=0, boots=2)
    play(state, rng, [PB, PB, Bid(1), PASS])
    assert phase(state) is Phase.CHOOSE_LOSS
    assert state.legal_actions() == [Discard(B)]
    expect_illegal(state, rng, Discard(S), "hold")


# --- next round's first player -------------------------------------------------------------


def test_after_success_the_challenger_is_first_in_the_next_round() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS, PS, PS, Bid(3), PASS, PASS, Flip(0, 1), Flip(1, 0)])
    obs = state.observation(0)
    assert obs.phase is Phase.PLACE and obs.round_number == 2 and obs.first_player == 2
    assert play(state, rng, [PS, PS, PS]) == [2, 0, 1]
    assert state.to_act() == 2  # step 2 starts with the first player too


def test_after_failure_the_surviving_challenger_is_first_in_the_next_round() -> None:
    state, rng = _fail_on_opponent_boot()
    play(state, rng, [PickBlind(0)])
    obs = state.observation(2)
    assert obs.phase is Phase.PLACE and obs.first_player == 1 and state.to_act() == 1
    assert obs.previous_round is not None
    assert (obs.previous_round.success, obs.previous_round.boot_owner) == (False, 2)
    assert not obs.previous_round.challenger_eliminated


def test_losing_the_last_card_eliminates_and_the_boot_owner_is_first() -> None:
    state, rng = new_game(3, sausages=1, boots=1)
    play(state, rng, [PS, PS, PB, Bid(2), PASS, PASS, Flip(2, 0)])
    take_boot = next(p for p, card in blind_positions(state).items() if card is B)
    play(state, rng, [PickBlind(take_boot)])
    assert state.observation(0).hand_sausages == 1 and state.observation(0).hand_boots == 0
    # Round 2: seat 0 places its last card, challenges and turns seat 2's boot again.
    play(state, rng, [PS, PS, PB, Bid(2), PASS, PASS, Flip(2, 0)])
    assert state.legal_actions() == [PickBlind(0)]
    play(state, rng, [PickBlind(0)])
    obs = state.observation(1)
    assert not obs.seats[0].active and obs.seats[0].eliminated_order == 1
    assert obs.seats[0].hand_count == 0
    assert obs.previous_round is not None and obs.previous_round.challenger_eliminated
    assert obs.phase is Phase.PLACE and obs.first_player == 2
    assert play(state, rng, [PS, PS]) == [2, 1]  # the eliminated seat is skipped
    assert play(state, rng, [PB, PB]) == [2, 1]


def test_eliminated_on_own_boot_the_challenger_names_the_first_player() -> None:
    state, rng = new_game(4, sausages=0, boots=1)
    # Round 1: seat 1 outbids seat 0 and turns its own (only) boot: out.
    play(state, rng, [PB, PB, PB, PB, Bid(1), Bid(2), PASS, PASS, PASS, Discard(B)])
    assert phase(state) is Phase.NAME_FIRST and state.to_act() == 1
    assert state.legal_actions() == [NameFirst(2), NameFirst(3), NameFirst(0)]
    expect_illegal(state, rng, NameFirst(1), "seat")
    play(state, rng, [NameFirst(3)])
    assert state.observation(0).first_player == 3
    # Round 2: seat 0 goes out the same way; the default skips the eliminated seat 1.
    assert play(state, rng, [PB, PB, PB, Bid(1), Bid(2), PASS, PASS, Discard(B)]) == [3, 0, 2, 3, 0, 2, 3, 0]
    assert state.to_act() == 0
    assert state.legal_actions() == [NameFirst(2), NameFirst(3)]
    expect_illegal(state, rng, NameFirst(1), "seat")
    play(state, rng, [NameFirst(3)])
    assert play(state, rng, [PB, PB]) == [3, 2]
    # Round 3: seat 3 goes out: seat 2 is the last player standing.
    play(state, rng, [Bid(1), PASS, Discard(B)])
    assert state.to_act() is None
    result = state.result()
    assert result.winners() == (2,)
    assert result.ranks == (2, 3, 0, 1)  # later elimination ranks higher
    assert result.scores == (0.0, 0.0, 1.0, 0.0)


# --- end of the game -----------------------------------------------------------------------


def test_final_ranking_winner_then_active_tied_then_eliminated_latest_first() -> None:
    state, rng = new_game(5, sausages=1, boots=1)
    others = [PASS] * 4
    # Seats 0 then 1 go out on their own boots (keeping the boot the first time).
    play(state, rng, [PB, PS, PS, PS, PS, Bid(1), *others, Discard(S)])
    play(state, rng, [PB, PS, PS, PS, PS, Bid(1), *others, Discard(B), NameFirst(1)])
    play(state, rng, [PB, PS, PS, PS, Bid(1), PASS, PASS, PASS, Discard(S)])
    play(state, rng, [PB, PS, PS, PS, Bid(1), PASS, PASS, PASS, Discard(B), NameFirst(2)])
    # Seat 3 succeeds once, then seat 2 twice.
    play(state, rng, [PS, PS, PS, PB, Bid(1), PASS, PASS])
    play(state, rng, [PS, PS, PS, PB, PB, Bid(1), PASS, PASS])
    play(state, rng, [PS, PS, PS, Bid(1), PASS, PASS])
    assert state.to_act() is None
    obs = state.observation(4)
    assert [view.successes for view in obs.seats] == [0, 0, 2, 1, 0]
    assert [view.eliminated_order for view in obs.seats] == [1, 2, 0, 0, 0]
    result = state.result()
    assert result.ranks == (4, 3, 0, 1, 1)  # seats 3 and 4 tie, successes do not count
    assert result.scores == (0.0, 0.0, 1.0, 0.0, 0.0)


def _capped_game(cap: int) -> tuple[EdibleState, random.Random]:
    state, rng = new_game(4, sausages=1, boots=1, action_cap=cap)
    others = [PASS] * 3
    play(state, rng, [PB, PS, PS, PS, Bid(1), *others, Discard(S)])  # 9 actions
    play(state, rng, [PB, PS, PS, PS, Bid(1), *others, Discard(B), NameFirst(1)])  # 19
    play(state, rng, [PS, PS, PS, Bid(1), PASS, PASS])  # 25: seat 1 succeeds
    return state, rng


def test_action_cap_ends_the_game_without_a_winner() -> None:
    assert EdibleConfig().action_cap == 1000
    state, rng = _capped_game(26)
    assert state.to_act() == 1
    play(state, rng, [PS])  # the 26th action
    assert state.to_act() is None
    assert state.legal_actions() == []
    expect_illegal(state, rng, PS, "over")
    result = state.result()
    assert result.scores == (0.0, 0.0, 0.0, 0.0)
    # Active seats by successes (ties share), then the eliminated seat.
    assert result.ranks == (3, 0, 1, 1)


# --- illegal actions -----------------------------------------------------------------------


def test_illegal_actions_in_the_placing_steps() -> None:
    state, rng = new_game(3)
    expect_illegal(state, rng, Bid(1), "place")
    expect_illegal(state, rng, PASS, "place")
    expect_illegal(state, rng, Flip(1, 0), "place")
    play(state, rng, [PB, PS, PS])
    expect_illegal(state, rng, PB, "hold")  # step 2: seat 0 has no boot left


def test_illegal_actions_in_the_attempt() -> None:
    state, rng = new_game(3)
    play(state, rng, [PS, PS, PS, PS, PS, PS, Bid(4), PASS, PASS])
    expect_illegal(state, rng, Bid(5), "flip")
    expect_illegal(state, rng, PASS, "flip")
    expect_illegal(state, rng, Flip(0, 1), "opponent")
    expect_illegal(state, rng, Flip(9, 0), "opponent")
    expect_illegal(state, rng, Flip(1, 2), "mat")
    expect_illegal(state, rng, Flip(1, -1), "mat")
    play(state, rng, [Flip(1, 1)])
    expect_illegal(state, rng, Flip(1, 1), "face up")


def test_the_same_seed_and_actions_replay_exactly() -> None:
    runs = []
    for _ in range(2):
        state, rng = _fail_on_opponent_boot(seed=7)
        play(state, rng, [PickBlind(2)])
        runs.append(snapshot(state))
    assert runs[0] == runs[1]
