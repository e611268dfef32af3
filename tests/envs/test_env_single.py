"""sdk.envs.single: one seat plays whole games against built-in bots or callables."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from arena.bots import builtin_names
from arena.games.registry import get_game
from sdk.envs.single import SeatEnv, masked_random

BUILTIN_FIELDS = {
    "edible": ["builtin:heuristic", "builtin:random"],
    "believe": ["builtin:honest", "builtin:caller", "builtin:random"],
    "kozel": ["builtin:random", "builtin:heuristic", "builtin:random"],  # agent 2, the partner: heuristic
}


@pytest.mark.parametrize("game", sorted(BUILTIN_FIELDS))
def test_gymnasiums_env_checker_passes(game: str) -> None:
    """The checker steps unmasked samples: an illegal one ends the episode with ``illegal_reward``."""
    check_env(SeatEnv(game, BUILTIN_FIELDS[game], illegal_reward=-1.0), skip_render_check=True)


def test_an_illegal_index_ends_the_episode_or_is_refused() -> None:
    env = SeatEnv("edible", ["builtin:random"], illegal_reward=-1.0)
    env.reset(seed=1)
    _, reward, terminated, _, info = env.step(2)
    assert (reward, terminated, info["illegal"]) == (-1.0, True, 2)
    with pytest.raises(ValueError, match="ended on an illegal action: reset"):
        env.step(0)
    env.reset()
    env.step(0)
    strict = SeatEnv("edible", ["builtin:random"])
    strict.reset(seed=1)
    with pytest.raises(ValueError, match=r"action 2 is not legal for agent 0 now; legal: \[0, 1\]"):
        strict.step(2)


@pytest.mark.parametrize("game", sorted(BUILTIN_FIELDS))
def test_the_seat_plays_whole_games_against_builtins(game: str) -> None:
    assert {spec.removeprefix("builtin:") for spec in BUILTIN_FIELDS[game]} <= set(builtin_names(game))
    env = SeatEnv(game, BUILTIN_FIELDS[game])
    rng = np.random.default_rng(0)
    observation, info = env.reset(seed=4)
    seats = []
    for game_index in range(4 if game == "kozel" else 12):
        if game_index:
            observation, info = env.reset()
        seats.append(info["seat"])
        terminated, reward = False, 0.0
        while not terminated:
            assert observation["action_mask"].any()
            assert (env.action_masks() == observation["action_mask"]).all()
            observation, reward, terminated, truncated, info = env.step(
                masked_random(observation["action_mask"], rng)
            )
            assert not truncated
        assert reward == info["result"].scores[info["seat"]]
    agents = env.table.agents
    assert seats == [index % agents for index in range(len(seats))], "the seats rotate as in a match"


def test_opponents_may_be_any_callables() -> None:
    asked: list[int] = []

    def first_legal(observation: Any, legal: Sequence[Any]) -> Any:
        asked.append(observation.seat)
        return legal[0]

    env = SeatEnv("edible", [first_legal, first_legal])
    observation, _ = env.reset(seed=2)
    terminated = False
    while not terminated:
        observation, _, terminated, _, info = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    assert set(asked) == {seat for seat in range(3) if seat != info["seat"]}
    assert get_game("edible").scores_for(info["result"].ranks, info["result"].detail) == info["result"].scores


def test_a_seed_replays_the_same_games() -> None:
    def run() -> list[Any]:
        env = SeatEnv("believe", ["builtin:random", "builtin:caller"])
        observation, _ = env.reset(seed=9)
        chooser, outcomes = random.Random(1), []
        for game_index in range(3):
            if game_index:
                observation, _ = env.reset()
            terminated = False
            while not terminated:
                index = chooser.choice(list(np.flatnonzero(observation["action_mask"])))
                observation, reward, terminated, _, info = env.step(index)
            outcomes.append((reward, info["result"], env.table.state.reveal()))
        return outcomes

    assert run() == run()
