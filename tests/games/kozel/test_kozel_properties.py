"""Property tests for Kozel over many random series: every card is always somewhere and only once,
hands, stock and piles stay sound, every deal's points add up to 120 and its defeat points follow
the scoring table, and the series result follows from the deals."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator

import pytest

from arena.bots import load_bot
from arena.games.kozel import DECK, DECLINE, Kozel, KozelConfig, KozelState, Molodka, Phase
from arena.games.kozel.engine import Kozel1
from arena.games.registry import get_game
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner

SERIES = 60


def defeat_for(points: tuple[int, ...], tricks: tuple[int, ...]) -> tuple[int, int]:
    """The scoring table, written out independently of the engine."""
    awarded = [0, 0]
    if points[0] != 60:
        loser = 0 if points[0] < 60 else 1
        if 31 <= points[loser] <= 59:
            awarded[loser] = 2
        elif tricks[loser]:
            awarded[loser] = 4
        else:
            awarded[loser] = 6
    return awarded[0], awarded[1]


def random_series(seed: int, config: KozelConfig | None = None) -> Iterator[KozelState]:
    """The state before every decision of a series played by random legal actions, then the end."""
    rng, chooser = random.Random(seed), random.Random(-seed - 1)
    state = Kozel().new_state(config or KozelConfig(), 4, rng)
    while state.to_act() is not None:
        yield state
        state.apply(chooser.choice(state.legal_actions()), rng)
    yield state


def check_cards(state: KozelState) -> None:
    """Every card is in exactly one place: a hand, the stock, the table or a team pile."""
    reveal = state.reveal()
    table = [card for placed in reveal["trick"] for card in placed["cards"]]
    places = [*reveal["hands"], reveal["stock"], table, *reveal["piles"]]
    everything = [card for place in places for card in place]
    assert sorted(everything) == sorted(DECK), "a card is duplicated or lost"
    views = [state.observation(seat) for seat in range(4)]
    for seat, view in enumerate(views):
        assert view.hand == tuple(reveal["hands"][seat])
        assert view.hand_counts == tuple(len(hand) for hand in reveal["hands"])
        assert view.stock_count == len(reveal["stock"])
        # Own discards are in the winner's pile or still on the table.
        assert set(view.my_discards) <= set(table) | set(reveal["piles"][0]) | set(reveal["piles"][1])
    assert all(len(hand) <= 4 for hand in reveal["hands"])
    view = views[0]
    # Team piles hold exactly the cards of the tricks each team won, discards included.
    won = [0, 0]
    for trick in view.tricks:
        won[trick.winner % 2] += sum(len(play.cards) + play.discarded for play in trick.plays)
    assert won == [len(pile) for pile in reveal["piles"]]
    assert sum(view.team_tricks) == len(view.tricks)
    assert list(view.team_tricks) == [sum(1 for t in view.tricks if t.winner % 2 == team) for team in (0, 1)]
    # The trump card: in the stock at its public place, or drawn by its public holder.
    if view.trump_in_stock:
        assert reveal["stock"][view.trump_depth] == view.trump_card
    else:
        assert view.trump_card not in reveal["stock"] and view.trump_holder in range(4)


@pytest.mark.parametrize("block", range(4))
def test_cards_are_never_duplicated_or_lost_and_hands_stay_sound(block: int) -> None:
    decisions = 0
    for seed in range(block * SERIES // 4, (block + 1) * SERIES // 4):
        for state in random_series(seed):
            check_cards(state)
            if state.to_act() is None:
                continue
            decisions += 1
            obs = state.observation(0)
            at_trick_start = not obs.trick and not obs.returned
            if at_trick_start and obs.stock_count:
                assert obs.hand_counts == (4, 4, 4, 4), "while the stock lasts a trick starts with 4 each"
            if obs.trick:
                size = len(obs.trick[0].cards)
                assert all(len(play.cards) + play.discarded == size for play in obs.trick)
    assert decisions > 1000


def test_every_deal_scores_120_points_and_follows_the_scoring_table() -> None:
    deals = 0
    for seed in range(SERIES):
        *_, final = random_series(seed)
        result = final.result()
        total = [0, 0]
        for deal in result.detail["deals"]:
            assert sum(deal["points"]) == 120
            assert sum(deal["team_tricks"]) >= 1
            assert tuple(deal["defeat_awarded"]) == defeat_for(
                tuple(deal["points"]), tuple(deal["team_tricks"])
            )
            total = [total[team] + deal["defeat_awarded"][team] for team in (0, 1)]
            deals += 1
        assert total == result.detail["defeat_points"]
        assert result.detail["end"] == "target" and max(total) >= 12
        loser = 0 if total[0] > total[1] else 1
        assert result.ranks == tuple(2 if seat % 2 == loser else 0 for seat in range(4))
        assert result.scores == tuple(0.0 if seat % 2 == loser else 1.0 for seat in range(4))
        assert result.detail["winning_team"] == 1 - loser
    assert deals > SERIES


def test_each_deal_starts_with_four_cards_each_and_its_last_trick_winner_leading_the_next() -> None:
    for seed in range(SERIES // 2):
        deal = -1
        for state in random_series(seed):
            obs = state.observation(0)
            if obs.phase is Phase.OVER or obs.deal_number == deal:
                continue
            deal = obs.deal_number
            assert obs.hand_counts == (4, 4, 4, 4) and obs.stock_count == 20 and obs.trick == ()
            assert obs.dealer == (obs.leader - 1) % 4
            if obs.previous_deal is not None:
                assert obs.leader == obs.previous_deal.last_trick_winner
                assert obs.previous_deal.deal_number == deal - 1


def test_only_the_asked_seat_ever_sees_a_molodka_question() -> None:
    asked = 0
    for seed in range(SERIES):
        for state in random_series(seed):
            seat = state.to_act()
            if seat is None:
                continue
            views = [state.observation(other) for other in range(4)]
            molodka = [other for other, view in enumerate(views) if view.phase is Phase.MOLODKA]
            if views[seat].phase is Phase.MOLODKA:
                asked += 1
                assert molodka == [seat]
                hand = views[seat].hand
                four_of_a_suit = len(hand) == 4 and len({card[1] for card in hand}) == 1
                assert state.legal_actions() == [DECLINE, Molodka(hand)] if four_of_a_suit else [DECLINE]
                # Everyone else sees the regular turn, as if nobody were being asked.
                assert all(views[other].to_act == views[other].turn for other in range(4) if other != seat)
            else:
                assert molodka == []
                assert all(view.to_act == seat for view in views)
    assert asked > 0, "no molodka question came up: the property proves nothing"


def test_a_window_asks_every_seat_still_to_play_whoever_holds_a_molodka() -> None:
    """Who is asked depends on public facts alone (who still plays to the trick), so the time the
    others wait for their next request tells them nothing of anyone's hand (issue 35)."""
    windows = 0
    for seed in range(SERIES):
        asked: list[int] = []
        expected: list[int] = []
        for state in random_series(seed):
            if state.asking >= 0:
                if not asked:  # a window opens: every seat still to play, clockwise from the leader
                    order = [(state.leader + step) % 4 for step in range(4)]
                    expected = [seat for seat in order if state.holding[seat] and not state.played[seat]]
                asked.append(state.asking)
            elif asked:  # the window is over: all were asked, or one declared (and no window opens again)
                declared = not state.molodka_allowed
                assert asked == expected[: len(asked)] if declared else asked == expected
                windows += 1
                asked = []
    assert windows > 100


def test_a_match_played_under_version_1_still_replays_exactly() -> None:
    """Version 2 asks every seat in a window; version 1's matches replay under version 1's rules."""
    agents = [InProcessAgent(load_bot("kozel", "builtin:random")) for _ in range(4)]
    record = asyncio.run(MatchRunner(Kozel1(), KozelConfig(), agents, games=2, seed=3).run())
    data = json.loads(json.dumps(replay.to_json(record)))
    assert data["game_version"] == 1 and get_game("kozel").version == 2
    assert replay.verify(data) == []
