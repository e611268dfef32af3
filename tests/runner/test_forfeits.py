"""Forfeits: a forfeiting seat ranks last, and every seat's score follows from the ranks by the
game's one scoring rule (``Game.scores_for``), the same rule its engine applies to a normal end."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.bots import load_bot
from arena.games.base import Game, GameResult
from arena.games.edible import Bid, Edible, EdibleAction, EdibleConfig, EdibleObservation
from arena.games.registry import all_games
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner, forfeit_result
from arena.runner.terms import FaultPolicy, Status
from sdk import Bot

GAMES = {game.name: game for game in all_games()}


class AlwaysIllegal(Bot[EdibleObservation, EdibleAction]):
    """Answers a bid no game allows, every time."""

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return Bid(999)


def test_a_forfeiting_bot_s_stand_in_wins_and_the_scores_follow_the_ranks() -> None:
    """The issue's repro (``arena play edible that_bot.py builtin:random --games 6 --seed 1
    --max-faults 10``). Before: games whose stand-in moves won ranked the other seat first with
    score 0, so the match totals disagreed with the table's wins."""
    agents = [
        InProcessAgent(AlwaysIllegal(), "that_bot"),
        InProcessAgent(load_bot("edible", "builtin:random"), "random"),
    ]
    runner = MatchRunner(Edible(), EdibleConfig(), agents, games=6, seed=1, policy=FaultPolicy(max_faults=10))
    record = asyncio.run(runner.run())
    totals, stand_in_won = [0.0, 0.0], 0
    for game in record.games:
        assert game.result is not None and game.engine_result is not None
        bad = game.seating.index(0)
        assert game.statuses[bad] is Status.ILLEGAL_ACTION and game.forfeited == [bad]
        assert game.result.ranks[bad] == 1 and game.result.ranks[1 - bad] == 0
        assert game.result.scores[bad] == 0.0 and game.result.scores[1 - bad] == 1.0
        stand_in_won += game.engine_result.ranks[bad] == 0
        for seat, agent in enumerate(game.seating):
            totals[agent] += game.result.scores[seat]
    assert stand_in_won, "the stand-in won no game: the case of the issue is not covered"
    assert [row["wins"] for row in record.agent_summary()] == [0, 6]
    assert totals == [0.0, 6.0]
    assert replay.verify(replay.to_json(record)) == []


def played(game: Game[Any, Any, Any], seats: int, seed: int, cap: int | None) -> GameResult:
    """The engine result of a game of uniformly random actions."""
    config = game.config_type()
    if cap is not None:
        config = dataclasses.replace(config, action_cap=cap)
    rng, chooser = random.Random(seed), random.Random(seed + 1)
    state = game.new_state(config, seats, rng)
    while state.to_act() is not None:
        state.apply(state.random_action(chooser), rng)
    return state.result()


@st.composite
def forfeits(draw: st.DrawFn) -> tuple[Game[Any, Any, Any], GameResult, list[int]]:
    game = GAMES[draw(st.sampled_from(sorted(GAMES)))]
    seats = draw(st.integers(game.min_seats, game.max_seats))
    cap = draw(st.sampled_from([None, 3, 20, 60]))
    result = played(game, seats, draw(st.integers(0, 2**32)), cap)
    chosen = draw(st.sets(st.integers(0, seats - 1), min_size=1, max_size=seats))
    # As the runner does: a forfeit costs the seat's whole team.
    teams = {game.team_of(seat) for seat in chosen}
    return game, result, [seat for seat in range(seats) if game.team_of(seat) in teams]


@settings(max_examples=300, deadline=None)
@given(forfeits())
def test_after_any_forfeit_ranks_and_scores_follow_one_rule(
    case: tuple[Game[Any, Any, Any], GameResult, list[int]],
) -> None:
    game, engine, forfeited = case
    # The rule is the engine's own: a normal end already follows it.
    assert engine.scores == game.scores_for(engine.ranks, engine.detail)
    result = forfeit_result(game, engine, forfeited)
    ranks, scores = result.ranks, result.scores
    assert result.detail["forfeited"] == sorted(forfeited)
    assert scores == game.scores_for(ranks, result.detail)
    kept = [seat for seat in range(len(ranks)) if seat not in forfeited]
    # Forfeiting seats share the last place, below every other seat, which keep the rules' order.
    assert len({ranks[seat] for seat in forfeited}) == 1
    assert all(ranks[seat] < ranks[forfeited[0]] for seat in kept)
    for one in kept:
        for other in kept:
            if engine.ranks[one] < engine.ranks[other]:
                assert ranks[one] < ranks[other]
    # Scores agree with ranks: a better rank never scores less, and a shared rank scores the same.
    for one in range(len(ranks)):
        for other in range(len(ranks)):
            if ranks[one] < ranks[other]:
                assert scores[one] >= scores[other]
            elif ranks[one] == ranks[other]:
                assert scores[one] == scores[other]
    if kept and not result.detail.get("capped"):
        # Someone who did not forfeit outscores the forfeiters (an edible game at its cap has no
        # winner, and nobody scores).
        assert max(scores[seat] for seat in kept) > scores[forfeited[0]]
