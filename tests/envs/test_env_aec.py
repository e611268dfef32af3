"""sdk.envs.aec: PettingZoo's own API test, the conformance suite's hidden-information check on what
each agent is shown, masks that are the legal actions, seeding, and results equal to the runner's."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import numpy as np
import pytest
from conformance.test_conformance import check_hidden_from_every_seat
from pettingzoo.test import api_test, seed_test

from arena.bots import load_bot
from arena.games.registry import get_game
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner
from sdk.envs.aec import ArenaEnv
from sdk.envs.encoding import shown

CASES = [("edible", 2), ("edible", 5), ("believe", 3), ("believe", 8), ("kozel", 4)]


def play(env: ArenaEnv, rng: random.Random, visit: Any = None) -> dict[str, float]:
    """Play ``env``'s current game to its end by random legal indices; each agent's reward."""
    rewards = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            rewards[agent] = reward
            env.step(None)
            continue
        if visit is not None:
            visit(env, agent, observation)
        env.step(rng.choice(list(np.flatnonzero(observation["action_mask"]))))
    return rewards


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_pettingzoos_api_test_passes(game: str, seats: int) -> None:
    api_test(ArenaEnv(game, seats), num_cycles=400)


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_pettingzoos_seed_test_passes(game: str, seats: int) -> None:
    seed_test(lambda: ArenaEnv(game, seats), num_cycles=200)


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_an_agent_is_shown_nothing_hidden_from_its_seat(game: str, seats: int) -> None:
    env = ArenaEnv(game, seats)
    table, probe = env.table, random.Random(5)
    changed = False

    def observe(state: Any, seat: int) -> tuple[bytes, bytes]:
        seen = shown(table.encoding, state, seat, table.pending)
        return seen.vector.tobytes(), seen.mask.tobytes()

    def check(env: ArenaEnv, agent: str, observation: dict[str, Any]) -> None:
        nonlocal changed
        assert observe(table.state, env.seat(agent)) == (
            observation["observation"].tobytes(),
            observation["action_mask"].tobytes(),
        ), "the environment shows an agent something else than its seat's view"
        if probe.random() < 0.2:
            label = f"{game} game {table.game_index}"
            changed = check_hidden_from_every_seat(table.state, probe, label, observe) or changed

    env.reset(seed=3)
    for _ in range(4):
        play(env, random.Random(table.game_index), check)
        env.reset()
    assert changed, "no re-deal changed anything: the check proved nothing"


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_the_mask_is_the_legal_actions(game: str, seats: int) -> None:
    env = ArenaEnv(game, seats)
    table = env.table
    checked = 0

    def check(env: ArenaEnv, agent: str, observation: dict[str, Any]) -> None:
        nonlocal checked
        typed = env.typed_observation(agent)
        mask = observation["action_mask"]
        if table.pending == table.encoding.start:
            for action in table.state.legal_actions():
                for index in table.encoding.indices(action, typed)[:1]:
                    assert mask[index], f"{action!r} is legal but its index {index} is masked out"
        for masked in np.flatnonzero(mask):
            action, _ = table.encoding.decode(int(masked), typed, table.pending)
            if action is not None:
                table.state.check(action)  # raises IllegalAction for an illegal one
                assert table.encoding.indices(action, typed)[-1] == masked
        checked += 1

    env.reset(seed=11)
    for _ in range(3 if game == "kozel" else 10):
        play(env, random.Random(table.game_index), check)
        env.reset()
    assert checked > 200


def test_an_illegal_index_is_refused_saying_which_are_legal() -> None:
    env = ArenaEnv("edible", 3)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"action 2 is not legal for agent 0 now; legal: \[0, 1\]"):
        env.step(2)


def test_a_seed_gives_the_same_games_and_another_seed_others() -> None:
    def run(seed: int) -> list[Any]:
        env = ArenaEnv("believe", 4)
        env.reset(seed=seed)
        outcomes = []
        for game in range(3):
            rewards = play(env, random.Random(game))
            outcomes.append((env.table.state.reveal(), rewards))
            env.reset()
        return outcomes

    assert run(7) == run(7)
    assert run(7) != run(8)


@pytest.mark.parametrize(
    ("game", "seats", "duplicate"), [*((*case, False) for case in CASES), ("edible", 3, True)]
)
def test_a_match_played_in_the_environment_ends_as_the_runners(
    game: str, seats: int, duplicate: bool
) -> None:
    """The runner plays a match of random bots; the environment, given the same match seed and the
    runner's actions as indices, deals the same games, seats and dealers and gives the same rewards."""
    games = 2 if game == "kozel" else 2 * seats
    agents = [InProcessAgent(load_bot(game, "builtin:random")) for _ in range(seats)]
    runner = MatchRunner(
        get_game(game), get_game(game).config_type(), agents, games=games, seed=99, duplicate=duplicate
    )
    record = asyncio.run(runner.run())
    env = ArenaEnv(game, seats, duplicate=duplicate)
    env.reset(seed=99)
    for played in sorted(record.games, key=lambda played: played.index):
        if played.index:
            env.reset()
        assert env.table.seating == played.seating
        for seat, action in played.actions:
            agent = env.agent_selection
            assert env.seat(agent) == seat
            for index in env.table.encoding.indices(action, env.typed_observation(agent)):
                env.step(index)
        assert env.table.over() and played.result is not None
        scores = played.result.scores
        assert env.table.result().scores == scores
        rewards = {agent: env._cumulative_rewards[agent] for agent in env.agents}
        assert rewards == {f"player_{agent}": scores[played.seating.index(agent)] for agent in range(seats)}


def test_kozel_partners_share_their_reward_and_the_sides_alternate() -> None:
    env = ArenaEnv("kozel", 4)
    env.reset(seed=21)
    sides, outcomes = [], set()
    for game in range(4):
        sides.append(env.seat("player_0") % 2)
        assert env.seat("player_0") % 2 == env.seat("player_2") % 2 != env.seat("player_1") % 2
        rewards = play(env, random.Random(game))
        assert rewards["player_0"] == rewards["player_2"] and rewards["player_1"] == rewards["player_3"]
        assert rewards["player_0"] + rewards["player_1"] == 1.0
        outcomes.add(rewards["player_0"])
        env.reset()
    assert sides == [0, 1, 0, 1]
    assert len(outcomes) > 1, "the same team won every game: the test shows little"
