"""Believe's reference bots play only legal actions, and the card counter counts cards."""

from __future__ import annotations

import random
from collections.abc import MutableSequence
from typing import Any

import pytest

from arena.games.believe import (
    DISBELIEVE,
    BelieveConfig,
    BelieveGame,
    BelieveState,
    Place,
    why_illegal,
)
from arena.games.believe.bots import CallerBot, HonestFirstBot, RandomBot
from sdk.bot import Bot

BOTS: list[type[Bot]] = [RandomBot, HonestFirstBot, CallerBot]  # type: ignore[type-arg]


def play_game(bots: list[Bot], seed: int, config: BelieveConfig | None = None) -> BelieveState:  # type: ignore[type-arg]
    rng = random.Random(seed)
    state = BelieveGame().new_state(config or BelieveConfig(), len(bots), rng)
    for seat, bot in enumerate(bots):
        bot.rng = random.Random(seed * 10 + seat)
        bot.begin_game(0, seat)
    while (acting := state.to_act()) is not None:
        observation = state.observation(acting)
        action = bots[acting].decide(observation, state.legal_actions(), 1000)
        assert why_illegal(observation, action) is None, f"{bots[acting].name}: {action!r}"
        state.apply(action, rng)
    return state


@pytest.mark.parametrize("seats", [2, 3, 5, 8])
def test_every_bot_plays_only_legal_actions(seats: int) -> None:
    for seed in range(6):
        bots = [BOTS[(seat + seed) % len(BOTS)]() for seat in range(seats)]
        play_game(bots, seed)
        play_game(
            [BOTS[(seat + seed) % len(BOTS)]() for seat in range(seats)],
            seed,
            BelieveConfig(kinds=3, copies=5),
        )


def test_the_honest_bot_never_lies() -> None:
    for seed in range(10):
        state = play_game([HonestFirstBot(), RandomBot(), HonestFirstBot()], seed)
        for check in state.observation(0).checks:
            if check.placer in (0, 2):
                assert check.truthful


def test_the_caller_disbelieves_a_claim_it_can_prove_false() -> None:
    # 2 kinds x 4 copies, 2 players: the caller (seat 1) holds three mushrooms, so a claim of two
    # mushrooms is a certain lie, however honest the placer has been.
    class StackedDeck(random.Random):
        def shuffle(self, x: MutableSequence[Any], *args: Any, **kwargs: Any) -> None:
            x[:] = [0, 0, 0, 1, 0, 1, 1, 1]  # dealt from seat 1: seat 1 gets 0 0 0 1

    rng = StackedDeck(0)
    state = BelieveGame().new_state(BelieveConfig(kinds=2, copies=4), 2, rng, dealer=0)
    assert state.observation(1).hand == (3, 1)
    state.apply(Place((1, 1), 0), rng)
    caller = CallerBot()
    caller.begin_game(0, 1)
    assert caller.decide(state.observation(1), state.legal_actions(), 1000) == DISBELIEVE
    assert caller.truth_chance(state.observation(1)) == 0.0


def test_the_caller_and_the_honest_bot_beat_random_play() -> None:
    lost = {"caller": 0, "honest": 0, "random": 0}
    for seed in range(30):
        bots: list[Bot] = [CallerBot(), HonestFirstBot(), RandomBot()]  # type: ignore[type-arg]
        shift = seed % 3
        seating = bots[shift:] + bots[:shift]
        result = play_game(seating, seed).result()
        loser = result.detail["loser"]
        if loser >= 0:
            lost[seating[loser].name] += 1
    assert lost["random"] >= 25, lost
