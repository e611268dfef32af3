"""The search bot: it plays only legal actions, decides from its own observation only (the hidden
cards reshuffled give the same decision), builds states consistent with what it sees, and beats
random play."""

from __future__ import annotations

import random

from arena.games.kozel import Kozel, KozelConfig, KozelState, Phase
from arena.games.kozel.bots import RandomBot
from arena.games.kozel.search import SearchBot, determinize
from sdk.bot import Bot, MatchInfo


def seated(bot: Bot[object, object], seat: int, seed: int) -> Bot[object, object]:
    teams = (0, 1, 0, 1)
    bot.begin_match(MatchInfo("test", "kozel", 1, KozelConfig(), seat, ("bot",) * 4, teams, 1, 1000, 0, seed))
    return bot


def cheap_search() -> SearchBot:
    bot = SearchBot()
    bot.rollouts, bot.min_determinizations = 8, 2
    return bot


def random_states(count: int, seed: int) -> list[KozelState]:
    """Mid-series states reached by random play, at random points of their deals."""
    rng = random.Random(seed)
    states: list[KozelState] = []
    while len(states) < count:
        state = Kozel().new_state(KozelConfig(), 4, rng)
        stop = rng.randrange(1, 120)
        for _ in range(stop):
            if state.to_act() is None:
                break
            state.apply(rng.choice(state.legal_actions()), rng)
        if state.to_act() is not None and len(state.legal_actions()) > 1:
            states.append(state)
    return states


def test_it_plays_only_legal_actions_over_whole_series() -> None:
    for seed in range(2):
        rng = random.Random(seed)
        bots: list[Bot[object, object]] = [
            seated(cheap_search() if seat % 2 == seed % 2 else RandomBot(), seat, seed * 4 + seat)  # type: ignore[arg-type]
            for seat in range(4)
        ]
        state = Kozel().new_state(KozelConfig(), 4, rng)
        while (seat := state.to_act()) is not None:
            legal = state.legal_actions()
            action = bots[seat].decide(state.observation(seat), legal, 10_000)
            assert action in legal, f"{type(bots[seat]).__name__} chose {action!r}, not among {legal}"
            state.apply(action, rng)
        assert all(bot.fallbacks == 0 for bot in bots if isinstance(bot, SearchBot))


def hidden(state: KozelState, seat: int, traced: set[str]) -> list[str]:
    """The cards ``seat`` cannot place: other hands, the stock, other seats' face-down discards,
    less the cards whose whereabouts are public (``traced``)."""
    cards = list(state.stock)
    for other in range(4):
        if other != seat:
            cards += state.hands[other] + state.discards[other]
    return sorted(set(cards) - {state.trump_card} - traced)


def test_determinized_states_match_the_observation() -> None:
    fields = (
        "phase",
        "turn",
        "leader",
        "trump_card",
        "trump_in_stock",
        "trump_depth",
        "stock_count",
        "hand",
        "hand_counts",
        "trick",
        "returned",
        "winning_seat",
        "my_discards",
        "team_tricks",
    )
    checked = 0
    for index, state in enumerate(random_states(60, seed=5)):
        seat = state.to_act()
        assert seat is not None
        observation = state.observation(seat)
        if observation.phase is Phase.MOLODKA:
            continue  # molodka windows are decided by a rule, without determinizing
        built = determinize(observation, random.Random(index))
        seen = built.observation(seat)
        for name in fields:
            assert getattr(seen, name) == getattr(observation, name), name
        assert built.legal_actions() == state.legal_actions()
        assert hidden(built, seat, state.traced) == hidden(state, seat, state.traced), (
            "the same cards are hidden, elsewhere"
        )
        checked += 1
    assert checked > 40


def test_it_decides_from_its_observation_only() -> None:
    differing = 0
    for index, state in enumerate(random_states(25, seed=9)):
        seat = state.to_act()
        assert seat is not None
        other = state.reshuffle_hidden(seat, random.Random(1000 + index))
        differing += any(other.hands[s] != state.hands[s] for s in range(4)) or other.stock != state.stock
        choices = []
        for version in (state, other):
            bot = seated(cheap_search(), seat, 77 + index)  # type: ignore[arg-type]
            choices.append(bot.decide(version.observation(seat), version.legal_actions(), 10_000))
        assert choices[0] == choices[1]
    assert differing > 10, "the reshuffles hardly changed the hidden cards"


def test_the_search_team_beats_the_random_team() -> None:
    """Single deals (a series capped at one deal), search on alternate teams: defeat points."""
    wins = 0
    deals = 12
    for seed in range(deals):
        rng = random.Random(100 + seed)
        team = seed % 2
        bots: list[Bot[object, object]] = [
            seated(cheap_search() if seat % 2 == team else RandomBot(), seat, seed * 4 + seat)  # type: ignore[arg-type]
            for seat in range(4)
        ]
        state = Kozel().new_state(KozelConfig(game_cap=1), 4, rng)
        while (seat := state.to_act()) is not None:
            action = bots[seat].decide(state.observation(seat), state.legal_actions(), 10_000)
            state.apply(action, rng)  # type: ignore[arg-type]
        points = state.deals[-1].points
        wins += points[team] > points[1 - team]
    assert wins >= 9, f"the search team won only {wins} of {deals} deals"
