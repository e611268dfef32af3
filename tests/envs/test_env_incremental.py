"""The environments' shortcuts give what a fresh encoding gives: believe's placement steps (the
vector and mask changed in place), and the encoders' caches of what the calls and finished tricks
showed, over many random games."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from arena.games import believe, kozel
from sdk import features
from sdk.envs.aec import ArenaEnv


def afresh(game: str, observation: Any) -> Any:
    """``observation`` with new objects where the encoders cache by identity (the calls, the
    finished tricks, the deal before): what a bot decoding the wire is given, encoded from nothing."""
    if game == "believe":
        return observation._replace(checks=tuple(believe.Check(*check) for check in observation.checks))
    previous = observation.previous_deal
    return observation._replace(
        tricks=tuple(list(observation.tricks)),
        previous_deal=None if previous is None else kozel.DealSummary(*previous),
    )


def fresh(game: str, observation: Any, pending: Any) -> tuple[bytes, bytes | None]:
    """The vector (and believe's mask) of ``observation`` and ``pending`` encoded afresh."""
    if game == "believe":
        again = afresh(game, observation)
        return (
            features.believe_features(again, pending).tobytes(),
            features.believe_mask(again, pending).tobytes(),
        )
    return features.kozel_features(afresh(game, observation)).tobytes(), None


@pytest.mark.parametrize(("game", "seats", "games"), [("believe", 3, 12), ("believe", 8, 3), ("kozel", 4, 2)])
def test_every_step_shows_what_a_fresh_encoding_of_the_seat_shows(game: str, seats: int, games: int) -> None:
    env = ArenaEnv(game, seats)
    env.reset(seed=seats)
    rng = random.Random(seats)
    steps = longest = 0
    for _ in range(games):
        for agent in env.agent_iter():
            shown, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            typed, pending = env.typed_observation(agent), env.table.pending
            vector, mask = fresh(game, typed, pending)
            assert shown["observation"].tobytes() == vector, (agent, typed, pending)
            assert mask is None or shown["action_mask"].tobytes() == mask, (agent, typed, pending)
            if game == "believe" and not any(pending):  # every seat too, from the cached calls
                for seat in range(seats):
                    other = env.table.state.observation(seat)
                    cached = features.believe_features(other).tobytes()
                    assert cached == fresh(game, other, features.NO_SELECTION)[0], (seat, other)
            longest = max(longest, sum(pending))
            env.step(rng.choice(np.flatnonzero(shown["action_mask"])))
            steps += 1
        env.reset()
    assert steps > 300
    if game == "believe":
        assert longest == believe.MAX_PLACE, "no placement grew to the most cards: the steps went untested"
