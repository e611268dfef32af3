"""Scenario tests for Goat (Kozel), one or more per rule of RULES.md section 3 and of the rules page.

Written from the rules, not from the engine: each test sets up a deal card by card with the
documented hook ``arranged_deal`` (or deals one from a seed), drives it through the public API
(``apply``, ``legal_actions``, ``to_act``, ``observation``, ``result``, ``reveal``) and checks
what the rules say must happen.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from arena.games.base import BadConfig, IllegalAction
from arena.games.kozel import (
    DECK,
    DECLINE,
    POINTS,
    Beat,
    Decline,
    Discard,
    Kozel,
    KozelAction,
    KozelConfig,
    KozelState,
    Lead,
    Molodka,
    Phase,
    Play,
    arranged_deal,
    beats,
    beats_all,
    sort_cards,
)
from arena.runner.match import MatchRunner

# --- helpers -------------------------------------------------------------------------------


def cards(text: str) -> tuple[str, ...]:
    """``"6S 7S"`` -> the cards in the engine's card order."""
    return sort_cards(text.split())


def lead(text: str) -> Lead:
    return Lead(cards(text))


def beat(text: str) -> Beat:
    return Beat(cards(text))


def discard(text: str) -> Discard:
    return Discard(cards(text))


def molodka(text: str) -> Molodka:
    return Molodka(cards(text))


def played(action: KozelAction) -> tuple[str, ...]:
    """The cards ``action`` plays: a lead, beat, discard or molodka, never a decline."""
    assert not isinstance(action, Decline), action
    return action.cards


def arrange(
    hands: Sequence[str],
    stock: str = "",
    trump: str = "6D",
    leader: int = 0,
    piles: Sequence[Iterable[str]] | None = None,
    answer_forced: bool = True,
    **options: Any,
) -> tuple[KozelState, random.Random]:
    """A deal set up card by card: ``hands`` per seat, the ``stock`` top card first. Cards in
    neither go to team 0's pile unless ``piles`` is given. Unless ``answer_forced`` is false, the
    seats without a molodka decline the first window's questions (``skip_forced``)."""
    hand_lists = [list(cards(hand)) for hand in hands]
    stock_list = stock.split()
    if piles is None:
        used = {card for hand in hand_lists for card in hand} | set(stock_list)
        piles = ([card for card in DECK if card not in used], [])
    state = arranged_deal(hand_lists, stock_list, trump, leader, piles=piles, **options)
    rng = random.Random(0)
    if answer_forced:
        skip_forced(state, rng)
    return state, rng


def skip_forced(state: KozelState, rng: random.Random) -> None:
    """Answer the questions of seats that hold no molodka (``Decline`` is all they may do): a window
    asks every seat still to play, and the scenarios below script only the real choices."""
    while state.asking >= 0 and state.legal_actions() == [DECLINE]:
        state.apply(DECLINE, rng)


def play(state: KozelState, rng: random.Random, actions: Iterable[KozelAction]) -> list[int]:
    """Apply ``actions`` in order, each seat without a molodka declining when asked; return the
    seat that acted for each one."""
    acted = []
    for action in actions:
        skip_forced(state, rng)
        seat = state.to_act()
        assert seat is not None, f"series over before {action!r}"
        assert action in state.legal_actions(), (
            f"{action!r} not legal for seat {seat}: {state.legal_actions()}"
        )
        state.apply(action, rng)
        acted.append(seat)
    skip_forced(state, rng)
    return acted


def snapshot(state: KozelState) -> tuple[object, ...]:
    return (
        state.to_act(),
        state.legal_actions(),
        state.reveal(),
        tuple(state.observation(seat) for seat in range(4)),
    )


def expect_illegal(state: KozelState, action: KozelAction, word: str) -> None:
    """``action`` raises IllegalAction whose message mentions ``word``, and changes nothing."""
    before = snapshot(state)
    with pytest.raises(IllegalAction) as info:
        state.apply(action, random.Random(0))
    assert word in str(info.value).lower(), str(info.value)
    assert snapshot(state) == before


def rest_of(*texts: str) -> list[str]:
    """The cards in none of ``texts``."""
    used = {card for text in texts for card in text.split()}
    return [card for card in DECK if card not in used]


def hand(state: KozelState, seat: int) -> tuple[str, ...]:
    return state.observation(seat).hand


def counts(state: KozelState) -> tuple[int, ...]:
    return state.observation(0).hand_counts


# A deal where nobody holds a molodka: trump diamonds, 10 cards in the stock, the trump card
# second from the top.
PLAIN = ("6S 7S 6H 7H", "8H 9H 6C 7C", "KS AS 8C 9C", "JH QH JC QC")
PLAIN_STOCK = "6D 7D 8D 9D JD QD KD TD AD TC"

# --- players, cards and the deal ------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_exactly_four_players(seats: int) -> None:
    with pytest.raises(BadConfig):
        Kozel().new_state(KozelConfig(), seats, random.Random(0))


def test_teams_are_opposite_seats() -> None:
    state = Kozel().new_state(KozelConfig(), 4, random.Random(1))
    assert [state.observation(seat).team for seat in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize(
    "config", [{"series_target": 0}, {"game_cap": 0}, {"action_cap": 0}], ids=["target", "cap", "actions"]
)
def test_bad_configs_are_refused(config: dict[str, int]) -> None:
    with pytest.raises(BadConfig):
        Kozel().new_state(KozelConfig(**config), 4, random.Random(0))
    with pytest.raises(BadConfig):
        KozelConfig.from_dict({"goats": 1})


def test_the_deck_is_36_cards_worth_120_points() -> None:
    assert len(DECK) == len(set(DECK)) == 36
    assert sum(POINTS[card[0]] for card in DECK) == 120


@pytest.mark.parametrize("seed", range(5))
def test_deal_four_each_one_at_a_time_from_the_dealers_left_and_show_a_stock_card(seed: int) -> None:
    """The documented draw order: the first dealer, the shuffle, then the trump card's place."""
    state = Kozel().new_state(KozelConfig(), 4, random.Random(seed))
    check = random.Random(seed)
    dealer = check.randrange(4)
    deck = list(DECK)
    check.shuffle(deck)
    obs = state.observation(0)
    assert obs.dealer == dealer
    assert obs.leader == obs.turn == (dealer + 1) % 4  # the player to the dealer's left leads
    for seat in range(4):
        dealt = [deck[position] for position in range(16) if (dealer + 1 + position) % 4 == seat]
        assert hand(state, seat) == sort_cards(dealt)
    reveal = state.reveal()
    assert reveal["stock"] == deck[16:]  # top first
    assert obs.stock_count == 20 and obs.hand_counts == (4, 4, 4, 4)
    assert obs.trump_in_stock and obs.trump_holder == -1
    assert reveal["stock"][obs.trump_depth] == obs.trump_card  # shown, and left in its place


def test_the_trump_card_is_a_uniformly_placed_card_of_the_stock() -> None:
    depths = {
        Kozel().new_state(KozelConfig(), 4, random.Random(seed)).observation(0).trump_depth
        for seed in range(300)
    }
    assert depths == set(range(20))


# --- card order --------------------------------------------------------------------------


def test_order_within_a_suit_puts_the_ten_between_king_and_ace() -> None:
    order = ["6H", "7H", "8H", "9H", "JH", "QH", "KH", "TH", "AH"]
    for weaker, stronger in itertools.pairwise(order):
        assert beats(stronger, weaker, "S") and not beats(weaker, stronger, "S")
    assert beats("TC", "QC", "D")  # the source's example: the ten of clubs beats the queen


def test_a_trump_beats_any_non_trump_and_other_suits_do_not_compare() -> None:
    assert beats("6H", "AS", "H")  # the source's example, hearts trump
    assert not beats("AS", "6H", "H")
    assert not beats("AS", "TD", "H") and not beats("TD", "AS", "H")
    assert beats("7H", "6H", "H") and not beats("6H", "7H", "H")  # trumps among themselves by rank


# --- the lead ------------------------------------------------------------------------------


def test_the_leader_plays_one_to_four_cards_of_one_suit() -> None:
    state, _ = arrange(("6S 7S 8S 6H", "8H 9H 6C 7C", "KS AS 8C 9C", "JH QH JC QC"), PLAIN_STOCK, "7D")
    legal = state.legal_actions()
    assert set(legal) == {
        lead("6S"), lead("7S"), lead("8S"), lead("6H"),
        lead("6S 7S"), lead("6S 8S"), lead("7S 8S"), lead("6S 7S 8S"),
    }  # fmt: skip
    assert [len(played(action)) for action in legal] == sorted(len(played(action)) for action in legal)
    expect_illegal(state, lead("6S 6H"), "one suit")
    expect_illegal(state, beat("6S"), "lead")
    expect_illegal(state, lead("AS"), "does not hold")


def test_a_lead_is_at_most_the_smallest_hand_still_holding_cards() -> None:
    state, _ = arrange(("6S 7S 8S 9S", "6H 7H", "", "8H 9H JH"), trump="6D", leader=0)
    assert max(len(played(action)) for action in state.legal_actions()) == 2
    expect_illegal(state, lead("6S 7S 8S"), "1..2")


# --- following: beat or discard -------------------------------------------------------------


def test_a_beat_is_judged_against_the_currently_winning_set_not_the_lead() -> None:
    state, rng = arrange(("6S", "9S", "7S TS", "8C"), trump="6D")
    play(state, rng, [lead("6S"), beat("9S")])
    assert state.observation(0).winning_seat == 1
    assert beats("7S", "6S", "D")  # 7S would beat the lead ...
    assert state.legal_actions() == [beat("TS"), discard("7S"), discard("TS")]  # ... but not 9S
    expect_illegal(state, beat("7S"), "do not beat")
    play(state, rng, [beat("TS"), discard("8C")])
    assert state.observation(3).tricks[0].winner == 2  # the last beater takes the trick


def test_beating_pairs_cards_one_to_one_in_any_order() -> None:
    assert beats_all(("7S", "TS"), ("6S", "KS"), "H")  # TS takes KS, 7S takes 6S
    assert not beats_all(("7S", "8S"), ("6S", "KS"), "H")  # both beat only 6S
    assert beats_all(("6H", "7S"), ("6S", "6C"), "H")  # only 6H can take 6C: 7S must take 6S
    state, rng = arrange(("6S KS", "7S TS", "AS 6H", "8S 9S"), trump="6D", leader=0)
    play(state, rng, [lead("6S KS")])
    assert beat("7S TS") in state.legal_actions()


def test_a_beat_may_mix_suits() -> None:
    state, rng = arrange(("6S KS", "7S TS", "AS 6D", "8S 9S"), trump="7D", leader=0)
    play(state, rng, [lead("6S KS"), beat("7S TS")])
    assert beat("AS 6D") in state.legal_actions()  # a spade and a trump
    play(state, rng, [beat("AS 6D")])
    assert state.legal_actions() == [discard("8S 9S")]  # 8S and 9S cannot beat AS or the trump


def test_discarding_is_always_allowed_even_when_able_to_beat_and_only_the_owner_sees_it() -> None:
    state, rng = arrange(("6S 6C", "AS 7C", "8C 9C", "JC QC"), trump="6D", leader=0)
    play(state, rng, [lead("6S")])
    assert beat("AS") in state.legal_actions()
    assert discard("AS") in state.legal_actions() and discard("7C") in state.legal_actions()
    play(state, rng, [discard("AS")])
    for seat in (0, 2, 3):
        obs = state.observation(seat)
        assert obs.trick[-1] == Play(1, (), 1, False)  # a count, no card
        assert "AS" not in obs.my_discards and obs.my_discards == ()
    assert state.observation(1).my_discards == ("AS",)
    assert state.observation(1).winning_seat == 0  # a discard never wins
    play(state, rng, [discard("8C"), discard("JC")])
    # The leader won: the discards, the ace included, are in team 0's pile and count there.
    assert "AS" in state.reveal()["piles"][0]
    assert state.observation(1).my_discards == ("AS",)
    assert state.observation(2).tricks[0].plays[1] == Play(1, (), 1, False)


def test_beating_the_partner_is_allowed() -> None:
    state, rng = arrange(("6S 6C", "7C 8C", "7S 9C", "JC QC"), trump="6D", leader=0)
    play(state, rng, [lead("6S"), discard("7C")])
    assert beat("7S") in state.legal_actions()
    play(state, rng, [beat("7S"), discard("JC")])
    assert state.observation(0).tricks[0].winner == 2


def test_the_winner_takes_every_card_of_the_trick_into_its_team_pile() -> None:
    state, rng = arrange(PLAIN, PLAIN_STOCK, "7D", piles=([], rest_of(*PLAIN, PLAIN_STOCK)))
    play(state, rng, [lead("6S 7S"), discard("8H 9H"), beat("KS AS"), discard("JH QH")])
    assert sorted(state.reveal()["piles"][0]) == sorted(cards("6S 7S 8H 9H KS AS JH QH"))
    assert state.observation(1).team_tricks == (1, 1)  # team 1's pile counted one trick already


# --- drawing -----------------------------------------------------------------------------


def test_players_draw_one_card_at_a_time_clockwise_winner_first() -> None:
    state, rng = arrange(PLAIN, PLAIN_STOCK, "7D")
    obs = state.observation(0)
    assert obs.trump_in_stock and obs.trump_depth == 1
    play(state, rng, [lead("6S 7S"), discard("8H 9H"), beat("KS AS"), discard("JH QH")])
    # Stock top first: 6D 7D 8D 9D JD QD KD TD ...; seat 2 won: 2, 3, 0, 1, 2, 3, 0, 1.
    assert hand(state, 2) == cards("8C 9C 6D JD")
    assert hand(state, 3) == cards("JC QC 7D QD")
    assert hand(state, 0) == cards("6H 7H 8D KD")
    assert hand(state, 1) == cards("6C 7C 9D TD")
    obs = state.observation(1)
    assert obs.stock_count == 2 and state.reveal()["stock"] == ["AD", "TC"]
    assert not obs.trump_in_stock and obs.trump_depth == -1 and obs.trump_holder == 3
    assert obs.leader == obs.turn == 2 and state.to_act() == 2  # the winner leads next


def test_hands_run_short_when_the_stock_runs_out() -> None:
    state, rng = arrange(PLAIN, "6D 7D 8D", "7D")
    play(state, rng, [lead("6S 7S"), discard("8H 9H"), beat("KS AS"), discard("JH QH")])
    assert counts(state) == (3, 2, 3, 3)  # 6D to seat 2, 7D to seat 3, 8D to seat 0, then empty
    assert state.observation(0).stock_count == 0
    assert max(len(played(action)) for action in state.legal_actions()) == 2  # seat 1 holds two


def test_players_with_no_cards_are_skipped_and_the_lead_passes_on() -> None:
    state, rng = arrange(("6S 7S", "", "8S", "9C"), trump="6D", leader=0)
    assert play(state, rng, [lead("6S"), beat("8S"), discard("9C")]) == [0, 2, 3]
    # Seat 2 won but holds nothing, nor does seat 3: the lead passes clockwise to seat 0.
    obs = state.observation(1)
    assert obs.tricks[-1].winner == 2 and obs.leader == 0 and state.to_act() == 0
    play(state, rng, [lead("7S")])  # nobody else holds a card: the trick and the deal end
    previous = state.observation(0).previous_deal
    assert previous is not None and previous.last_trick_winner == 0
    assert state.observation(0).deal_number == 1


# --- molodka -------------------------------------------------------------------------------

# Seat 2 holds a hearts molodka and seat 3 a clubs molodka; trump diamonds.
MOLODKA_HANDS = ("6S 7S 8H 9S", "6C 7C 8S JS", "6H 7H 9H JH", "8C 9C QC KC")
MOLODKA_STOCK = "6D 7D 9D TD JD QD KD AD"


def asked(state: KozelState) -> int:
    """The seat being asked about a molodka, or -1 (checked against that seat's observation)."""
    seat = state.to_act()
    assert seat is not None
    if state.observation(seat).phase is Phase.MOLODKA:
        assert state.legal_actions() == [DECLINE, Molodka(hand(state, seat))]
        return seat
    return -1


def test_molodka_returns_the_table_cards_and_restarts_the_trick_with_it() -> None:
    state, rng = arrange(MOLODKA_HANDS, MOLODKA_STOCK, "9D")
    assert asked(state) == 2  # before the lead: seat 2 first (nearest the leader), then seat 3
    assert play(state, rng, [DECLINE, DECLINE]) == [2, 3]
    assert play(state, rng, [lead("6S 7S")]) == [0]
    assert play(state, rng, [DECLINE, DECLINE, discard("6C 7C")]) == [2, 3, 1]
    assert state.observation(1).my_discards == ("6C", "7C")
    assert asked(state) == 2
    play(state, rng, [molodka("6H 7H 9H JH")])
    assert hand(state, 0) == cards("6S 7S 8H 9S") and hand(state, 1) == cards("6C 7C 8S JS")
    assert state.observation(1).my_discards == ()  # the discard went back to its owner
    obs = state.observation(0)
    assert obs.trick == (Play(2, cards("6H 7H 9H JH"), 0, True),)
    assert obs.returned == (Play(0, ("6S", "7S"), 0, False), Play(1, (), 2, False))
    assert obs.winning_seat == 2 and obs.turn == 3 and obs.leader == 0
    # Play continues clockwise from the molodka's player, four cards each; seat 3 still holds a
    # clubs molodka but is never asked again in this trick (one molodka per trick).
    assert asked(state) == -1 and state.to_act() == 3
    assert state.legal_actions() == [discard("8C 9C QC KC")]
    assert play(state, rng, [discard("8C 9C QC KC"), discard("6S 7S 8H 9S"), discard("6C 7C 8S JS")]) == [
        3,
        0,
        1,
    ]
    trick = state.observation(3).tricks[0]
    assert trick.winner == 2 and len(trick.plays) == 4 and len(trick.returned) == 2
    set_aside = len(rest_of(*MOLODKA_HANDS, MOLODKA_STOCK))
    assert len(state.reveal()["piles"][0]) == set_aside + 16  # the trick's 16 cards, discards and all


def test_molodka_priority_is_clockwise_from_the_original_leader() -> None:
    hands = ("6H 7H 9H JH", "6S 7S 8H 6C", "8C 9C QC KC", "8S JS 7C TC")  # molodkas: seats 0 and 2
    state, rng = arrange(hands, MOLODKA_STOCK, "9D", leader=1)
    assert asked(state) == 2  # from leader 1: seat 1, then 2, then 3, then 0
    play(state, rng, [DECLINE])
    assert asked(state) == 0
    play(state, rng, [DECLINE, lead("6S")])
    assert asked(state) == 2  # a new window after the lead, same order
    play(state, rng, [DECLINE])
    assert asked(state) == 0
    play(state, rng, [molodka("6H 7H 9H JH")])
    assert state.observation(3).returned == (Play(1, ("6S",), 0, False),)
    assert play(state, rng, [discard("6S 7S 8H 6C"), discard("8C 9C QC KC"), discard("8S JS 7C TC")]) == [
        1,
        2,
        3,
    ]


def test_when_two_would_declare_the_one_nearer_the_original_leader_wins() -> None:
    hands = ("6H 7H 9H JH", "6S 7S 8H 6C", "8C 9C QC KC", "8S JS 7C TC")
    state, rng = arrange(hands, MOLODKA_STOCK, "9D", leader=1)
    play(state, rng, [molodka("8C 9C QC KC")])  # seat 2 is asked before seat 0, and declares
    assert asked(state) == -1
    assert play(state, rng, [discard("8S JS 7C TC"), discard("6H 7H 9H JH"), discard("6S 7S 8H 6C")]) == [
        3,
        0,
        1,
    ]
    assert state.observation(0).tricks[0].winner == 2


def test_the_leader_is_asked_first_and_its_molodka_ends_the_windows() -> None:
    state, rng = arrange(MOLODKA_HANDS, MOLODKA_STOCK, "9D", leader=3)
    assert asked(state) == 3  # the leader is nearest to itself
    play(state, rng, [molodka("8C 9C QC KC")])
    obs = state.observation(2)
    assert obs.trick == (Play(3, cards("8C 9C QC KC"), 0, True),) and obs.returned == ()
    # Seat 2's hearts molodka is never asked for: one molodka per trick.
    for _ in range(3):
        assert asked(state) == -1
        play(state, rng, [state.legal_actions()[-1]])


def test_a_declined_seat_is_not_asked_again_in_the_same_window_but_is_in_the_next() -> None:
    state, rng = arrange(MOLODKA_HANDS, MOLODKA_STOCK, "9D")
    assert play(state, rng, [DECLINE]) == [2]
    assert asked(state) == 3
    play(state, rng, [DECLINE])
    assert asked(state) == -1 and state.to_act() == 0  # the window is over: the regular lead
    play(state, rng, [lead("6S")])
    assert asked(state) == 2  # the window after the lead asks again


def test_a_leader_that_declines_may_still_lead_its_four_cards_and_others_may_answer() -> None:
    state, rng = arrange(MOLODKA_HANDS, MOLODKA_STOCK, "9D", leader=2)
    assert asked(state) == 2
    play(state, rng, [DECLINE])
    assert asked(state) == 3
    play(state, rng, [DECLINE, lead("6H 7H 9H JH")])  # an ordinary lead of four hearts
    assert asked(state) == 3  # the window after an ordinary lead is open
    play(state, rng, [molodka("8C 9C QC KC")])
    assert state.observation(0).returned == (Play(2, cards("6H 7H 9H JH"), 0, False),)


def test_molodka_needs_everyone_holding_cards_to_hold_four() -> None:
    # The stock is empty and seat 0 holds three cards: seat 2's hearts may not be declared.
    state, rng = arrange(("6S 7S 8S", "6C 7C 8C JS", "6H 7H 9H JH", "9C QC KC 9S"), trump="6D")
    for action in (lead("6S"), discard("6C"), discard("6H"), discard("9C")):
        assert asked(state) == -1
        expect_illegal(state, molodka("6H 7H 9H JH"), "molodka")
        play(state, rng, [action])


def test_a_window_asks_a_seat_without_a_molodka_too_and_it_may_only_decline() -> None:
    """Who is asked must not tell anyone who holds a molodka (issue 35): seat 1 holds none, and is
    asked in every window all the same, in its place in the priority order."""
    state, rng = arrange(MOLODKA_HANDS, MOLODKA_STOCK, "9D", answer_forced=False)
    questions = []
    while state.asking >= 0:
        questions.append((state.asking, state.legal_actions()))
        state.apply(DECLINE, rng)
    assert questions == [
        (0, [DECLINE]),
        (1, [DECLINE]),
        (2, [DECLINE, molodka("6H 7H 9H JH")]),
        (3, [DECLINE, molodka("8C 9C QC KC")]),
    ]
    expect_illegal(state, molodka("6S 7S 8H 9S"), "molodka")


def test_a_seat_that_has_played_to_the_trick_may_not_declare() -> None:
    state, rng = arrange(MOLODKA_HANDS, MOLODKA_STOCK, "9D")
    play(state, rng, [DECLINE, DECLINE, lead("6S"), DECLINE, DECLINE, discard("6C"), DECLINE, DECLINE])
    play(state, rng, [discard("6H")])  # seat 2 played (it now holds three cards)
    assert asked(state) == 3  # only seat 3 is asked after seat 2's play
    play(state, rng, [DECLINE, discard("8C")])
    assert state.observation(0).tricks[0].winner == 0


def test_a_molodka_window_is_invisible_to_every_other_seat() -> None:
    """Two deals that differ only in a card seat 2 holds and a card deep in the stock: with it,
    seat 2 holds a molodka and is asked; without it, nobody is. No other seat can tell."""
    stock = "6D 7D 9D TD JD QD KD {} AD"
    shared = ("6S 7S 8H 9S", "6C 7C 8S JS", "", "8C 9C QC 8D")
    with_window, rng_a = arrange((*shared[:2], "6H 7H 9H JH", shared[3]), stock.format("TC"), "9D")
    without, rng_b = arrange((*shared[:2], "6H 7H 9H TC", shared[3]), stock.format("JH"), "9D")

    def same_for_others() -> None:
        for seat in (0, 1, 3):
            assert with_window.observation(seat) == without.observation(seat)

    assert with_window.to_act() == 2 and without.to_act() == 0  # the window is real ...
    same_for_others()  # ... and nobody else sees it
    assert with_window.observation(0).to_act == 0 and with_window.observation(0).phase is Phase.LEAD
    play(with_window, rng_a, [DECLINE])
    same_for_others()
    for action in (lead("6S 7S"), discard("6C 7C")):
        play(with_window, rng_a, [action])
        play(without, rng_b, [action])
        assert with_window.observation(2).phase is Phase.MOLODKA  # the window is real ...
        assert without.observation(2).phase is not Phase.MOLODKA
        same_for_others()  # ... and invisible
        play(with_window, rng_a, [DECLINE])
        same_for_others()


def test_reshuffling_keeps_what_is_public_about_hidden_cards() -> None:
    """Face-up cards a molodka gave back, and the drawn trump card, stay with their holders."""
    state, rng = arrange(MOLODKA_HANDS, MOLODKA_STOCK, "9D")
    play(state, rng, [DECLINE, DECLINE, lead("6S 7S"), molodka("6H 7H 9H JH")])
    probe = random.Random(3)
    moved = False
    for _ in range(30):
        other = state.reshuffle_hidden(1, probe)
        assert {"6S", "7S"} <= set(other.reveal()["hands"][0])
        assert other.observation(1) == state.observation(1)
        moved |= other.reveal()["hands"][3] != state.reveal()["hands"][3]
    assert moved


# --- scoring a deal ----------------------------------------------------------------------------


def split_points(points: int, pool: Sequence[str]) -> list[str]:
    """Point cards of ``pool`` worth exactly ``points``."""
    valued = sorted((card for card in pool if POINTS[card[0]]), key=lambda card: -POINTS[card[0]])

    def search(index: int, left: int) -> list[str] | None:
        if left == 0:
            return []
        if index == len(valued) or left < 0:
            return None
        with_card = search(index + 1, left - POINTS[valued[index][0]])
        if with_card is not None:
            return [valued[index], *with_card]
        return search(index + 1, left)

    found = search(0, points)
    assert found is not None, points
    return found


def last_trick(
    team0_points: int,
    *,
    team1_wins_last: bool = False,
    team_tricks: tuple[int, int] | None = None,
    **options: Any,
) -> tuple[KozelState, random.Random]:
    """The last trick of a deal, worth 0 points; team 0's pile holds ``team0_points`` before it."""
    hands = ("6S", "7S" if team1_wins_last else "7H", "8H", "9H")
    rest = [card for card in DECK if card not in {"6S", "7S", "7H", "8H", "9H"}]
    pile0 = split_points(team0_points, rest)
    pile1 = [card for card in rest if POINTS[card[0]] and card not in pile0]
    pile0 += [card for card in rest if not POINTS[card[0]]] + (["7H"] if team1_wins_last else ["7S"])
    state, rng = arrange(hands, trump="6D", piles=(pile0, pile1), team_tricks=team_tricks, **options)
    actions = [lead("6S"), beat("7S") if team1_wins_last else discard("7H"), discard("8H"), discard("9H")]
    play(state, rng, actions)
    return state, rng


@pytest.mark.parametrize(
    ("team0_points", "awarded"),
    [(61, (0, 2)), (89, (0, 2)), (90, (0, 4)), (118, (0, 4)), (59, (2, 0)), (40, (2, 0)), (30, (4, 0))],
)
def test_61_wins_and_the_loser_gets_2_for_31_to_59_and_4_for_30_or_less(
    team0_points: int, awarded: tuple[int, int]
) -> None:
    state, _ = last_trick(team0_points)
    previous = state.observation(0).previous_deal
    assert previous is not None
    assert previous.points == (team0_points, 120 - team0_points)
    assert previous.defeat_awarded == awarded
    assert state.observation(1).defeat_points == awarded


def test_60_60_is_eggs_and_nobody_scores() -> None:
    state, _ = last_trick(60)
    previous = state.observation(0).previous_deal
    assert previous is not None and previous.points == (60, 60)
    assert previous.defeat_awarded == (0, 0) and state.observation(0).defeat_points == (0, 0)


def test_a_team_with_no_trick_gets_6() -> None:
    state, _ = last_trick(120, team_tricks=(5, 0))
    previous = state.observation(0).previous_deal
    assert previous is not None and previous.team_tricks == (6, 0)
    assert previous.defeat_awarded == (0, 6)


def test_a_zero_point_trick_counts_as_a_trick() -> None:
    state, _ = last_trick(120, team1_wins_last=True, team_tricks=(5, 0))
    previous = state.observation(0).previous_deal
    assert previous is not None and previous.points == (120, 0) and previous.team_tricks == (5, 1)
    assert previous.defeat_awarded == (0, 4)


# --- series --------------------------------------------------------------------------------


def test_the_last_trick_winner_leads_the_next_deal() -> None:
    state, _ = last_trick(40, team1_wins_last=True)
    obs = state.observation(2)
    assert obs.deal_number == 1 and obs.tricks == () and obs.team_tricks == (0, 0)
    assert obs.leader == obs.turn == 1 and obs.dealer == 0  # the dealer sits to the leader's right
    assert obs.hand_counts == (4, 4, 4, 4) and obs.stock_count == 20 and obs.trump_in_stock
    assert obs.previous_deal is not None and obs.previous_deal.last_trick_winner == 1
    assert sum(len(h) for h in state.reveal()["hands"]) + len(state.reveal()["stock"]) == 36


def test_the_series_ends_when_a_team_reaches_the_target() -> None:
    state, _ = last_trick(40, defeat_points=(8, 0))  # team 0 gets 2: 10, not yet 12
    assert state.to_act() is not None and state.observation(0).defeat_points == (10, 0)
    state, _ = last_trick(40, defeat_points=(10, 0))
    assert state.to_act() is None and state.legal_actions() == []
    obs = state.observation(3)
    assert obs.phase is Phase.OVER and obs.to_act == -1 and obs.defeat_points == (12, 0)
    result = state.result()
    assert result.ranks == (2, 0, 2, 0) and result.scores == (0.0, 1.0, 0.0, 1.0)  # competition ranks
    assert result.detail["end"] == "target" and result.detail["winning_team"] == 1
    assert result.detail["defeat_points"] == [12, 0]
    assert result.detail["deals"][0]["defeat_awarded"] == [2, 0]
    assert result.detail["deals"][0]["points"] == [40, 80]
    expect_illegal(state, lead("6S"), "over")


def test_the_series_target_is_configurable() -> None:
    state, _ = last_trick(40, config=KozelConfig(series_target=2))
    assert state.to_act() is None and state.result().ranks == (2, 0, 2, 0)


def test_the_deal_cap_ends_the_series_fewer_defeat_points_win_and_a_tie_is_a_draw() -> None:
    state, _ = last_trick(60, config=KozelConfig(game_cap=1))  # eggs: 0-0 after the only deal
    result = state.result()
    assert result.detail["end"] == "game_cap"
    assert result.ranks == (0, 0, 0, 0) and result.scores == (0.5, 0.5, 0.5, 0.5)
    assert result.detail["winning_team"] == -1
    state, _ = last_trick(90, config=KozelConfig(game_cap=1))
    assert state.result().ranks == (0, 2, 0, 2) and state.result().scores == (1.0, 0.0, 1.0, 0.0)


def test_the_action_cap_ends_the_series_mid_deal() -> None:
    rng = random.Random(4)
    state = Kozel().new_state(KozelConfig(action_cap=5), 4, rng)
    for _ in range(5):
        assert state.to_act() is not None
        state.apply(state.legal_actions()[0], rng)
    assert state.to_act() is None
    result = state.result()
    assert result.detail["end"] == "action_cap" and result.detail["deals_played"] == 0
    assert result.ranks == (0, 0, 0, 0)


# --- actions and observations ------------------------------------------------------------------


def test_cards_are_a_set_in_any_order_kept_in_card_order() -> None:
    state, rng = arrange(PLAIN, PLAIN_STOCK, "7D")
    listed = lead("6S 7S")
    for given in (("7S", "6S"), ["7S", "6S"], ("6S", "7S")):
        action = Lead(given)  # type: ignore[arg-type]
        assert action == listed and action.cards == ("6S", "7S") and action in state.legal_actions()
    MatchRunner._check_legal(state, Lead(("7S", "6S")), state.legal_actions(), True)
    play(state, rng, [Lead(("7S", "6S"))])
    assert state.to_act() == 1
    for answer in state.legal_actions():  # beats and discards of two cards: the same in reverse
        assert isinstance(answer, Beat | Discard)
        assert type(answer)(tuple(reversed(answer.cards))) == answer


def test_illegal_actions_are_refused_with_a_reason_and_change_nothing() -> None:
    state, rng = arrange(PLAIN, PLAIN_STOCK, "7D")
    expect_illegal(state, Lead(("6S", "6S")), "twice")
    expect_illegal(state, Lead(["6S", 6]), "tuple")  # type: ignore[arg-type]  # on purpose
    expect_illegal(state, Lead(()), "non-empty")
    expect_illegal(state, DECLINE, "lead")
    expect_illegal(state, molodka("6S 7S 6H 7H"), "lead")
    play(state, rng, [lead("6S 7S")])
    expect_illegal(state, lead("8H"), "beat")
    expect_illegal(state, discard("8H"), "exactly 2")
    expect_illegal(state, beat("8H 9H"), "do not beat")
    expect_illegal(state, DECLINE, "beat")


def test_hands_are_shown_in_card_order_and_hidden_from_everyone_else() -> None:
    state, _ = arrange(("AH 6S TH 8S", *PLAIN[1:]), PLAIN_STOCK, "7D")
    assert hand(state, 0) == ("6S", "8S", "TH", "AH")  # by suit S H D C, then weakest to strongest
    for seat in range(4):
        obs = state.observation(seat)
        assert obs.hand_counts == (4, 4, 4, 4)
        assert all(card not in obs.hand for card in hand(state, (seat + 1) % 4))
