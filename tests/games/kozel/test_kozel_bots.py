"""The reference bots: they play only legal actions, the heuristic plays for its team, and it beats
random play clearly."""

from __future__ import annotations

import random

from arena.games.kozel import Discard, Kozel, KozelConfig, Phase
from arena.games.kozel.bots import HeuristicBot, RandomBot
from sdk.bot import Bot, MatchInfo


def seated(bot: Bot[object, object], seat: int, seed: int) -> Bot[object, object]:
    teams = (0, 1, 0, 1)
    bot.begin_match(MatchInfo("test", "kozel", 1, KozelConfig(), seat, ("bot",) * 4, teams, 1, 1000, 0, seed))
    return bot


def play_series(seed: int, heuristic_team: int) -> tuple[int, int]:
    """One series, heuristics on ``heuristic_team``; returns the winning team and how many times a
    heuristic played to a trick its partner was winning (always discarding)."""
    bots = [
        seated(HeuristicBot() if seat % 2 == heuristic_team else RandomBot(), seat, seed * 4 + seat)  # type: ignore[arg-type]
        for seat in range(4)
    ]
    rng = random.Random(seed)
    state = Kozel().new_state(KozelConfig(), 4, rng)
    checked = 0
    while (seat := state.to_act()) is not None:
        observation, legal = state.observation(seat), state.legal_actions()
        action = bots[seat].decide(observation, legal, 1000)
        assert action in legal, f"{type(bots[seat]).__name__} chose {action!r}, not among {legal}"
        partner_winning = observation.phase is Phase.PLAY and observation.winning_seat == (seat + 2) % 4
        if isinstance(bots[seat], HeuristicBot) and partner_winning:
            assert isinstance(action, Discard), f"the heuristic beat its winning partner: {action!r}"
            checked += 1
        state.apply(action, rng)
    return state.result().detail["winning_team"], checked


def test_the_heuristic_team_beats_the_random_team_and_never_overbeats_its_partner() -> None:
    wins = checked = 0
    for seed in range(20):
        winner, partner_tricks = play_series(seed, seed % 2)
        wins += winner == seed % 2
        checked += partner_tricks
    assert checked > 0
    assert wins >= 17, f"the heuristic team won only {wins} of 20 series"


def test_the_random_bot_is_reproducible_from_its_seed() -> None:
    rng = random.Random(3)
    state = Kozel().new_state(KozelConfig(), 4, rng)
    seat = state.to_act()
    assert seat is not None
    legal = state.legal_actions()
    choices = [seated(RandomBot(), seat, 42).decide(state.observation(seat), legal, 1000) for _ in range(3)]
    assert len(set(choices)) == 1 and choices[0] in legal
