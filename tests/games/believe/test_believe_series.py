"""Believe in a match: "the loser deals next time" (seeds 000 and 002). Within each leg of a match
the loser of a game deals, and so starts, the next one, wherever the seat rotation puts that bot;
a forfeit makes the forfeiting bot the loser. The match still replays exactly from its record."""

from __future__ import annotations

import asyncio
import json

import pytest

from arena.bots import load_bot
from arena.games.believe import BelieveAction, BelieveConfig, BelieveGame, BelieveObservation, Place
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner
from arena.runner.records import GameRecord, MatchRecord
from arena.runner.terms import Agent, FaultPolicy
from sdk import Bot


class AlwaysIllegal(Bot[BelieveObservation, BelieveAction]):
    """Places cards of a kind that does not exist, every time."""

    def act(self, observation: BelieveObservation) -> BelieveAction:
        return Place((99,), 0)


def play(agents: list[Agent], games: int, seed: int, duplicate: bool = False) -> MatchRecord:
    runner = MatchRunner(
        BelieveGame(),
        BelieveConfig(),
        agents,
        games=games,
        seed=seed,
        duplicate=duplicate,
        policy=FaultPolicy(max_faults=100),
    )
    record = asyncio.run(runner.run())
    assert replay.verify(json.loads(json.dumps(replay.to_json(record)))) == []
    return record


def starter(game: GameRecord) -> int:
    """The bot that made the game's first decision: its dealer."""
    return game.seating[game.actions[0][0]]


def losers(game: GameRecord) -> list[int]:
    """The bots ranked last in the game (after forfeits)."""
    assert game.result is not None
    last = max(game.result.ranks)
    return [game.seating[seat] for seat, rank in enumerate(game.result.ranks) if rank == last]


@pytest.mark.parametrize(
    ("seats", "games", "duplicate"),
    [(2, 6, False), (3, 6, False), (4, 8, False), (3, 9, True), (4, 8, True)],
)
def test_in_a_match_the_loser_of_a_game_deals_and_starts_the_next(
    seats: int, games: int, duplicate: bool
) -> None:
    """Before: every game was dealt from seat 0, so the rotation, not the loser, chose the dealer
    (in a 6-game match the previous loser dealt the next game 2 times of 5)."""
    agents: list[Agent] = [InProcessAgent(load_bot("believe", "builtin:random")) for _ in range(seats)]
    record = play(agents, games, seed=7, duplicate=duplicate)
    by_index = {game.index: game for game in record.games}
    single = 0
    for game in record.games:
        before = game.index - (seats if duplicate else 1)  # the game before it in its leg
        if before < 0:
            continue
        named = losers(by_index[before])
        assert starter(game) in named, f"game {game.index}: dealt by {starter(game)}, not a loser {named}"
        single += len(named) == 1
    assert single >= games // 2, "too few games with a single loser to show the rule"


def test_with_duplicate_deals_each_bot_deals_a_leg_s_first_game_once() -> None:
    """The first game of every leg plays the first deal, whose seed names one seat as dealer: the
    rotation seats a different bot there in each leg."""
    agents: list[Agent] = [InProcessAgent(load_bot("believe", "builtin:random")) for _ in range(4)]
    record = play(agents, 8, seed=3, duplicate=True)
    first = sorted(starter(game) for game in record.games if game.index < 4)
    assert first == [0, 1, 2, 3]


def test_a_forfeiting_bot_is_the_loser_and_deals_the_next_game() -> None:
    agents: list[Agent] = [
        InProcessAgent(AlwaysIllegal(), "that_bot"),
        InProcessAgent(load_bot("believe", "builtin:random"), "random"),
        InProcessAgent(load_bot("believe", "builtin:random"), "random#2"),
    ]
    record = play(agents, 6, seed=2)
    for game in record.games:
        assert game.forfeited == [game.seating.index(0)]
        assert losers(game) == [0]
        if game.index:
            assert starter(game) == 0, f"game {game.index}: the forfeiting bot lost the game before"
