"""Replays: an edited action list is caught even when it would replay to the same end."""

from __future__ import annotations

import asyncio
import json

from arena.bots import load_bot
from arena.games.edible import Edible, EdibleConfig
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner


def test_swapping_a_recorded_action_for_another_legal_one_is_reported() -> None:
    agents = [InProcessAgent(load_bot("edible", "builtin:random")) for _ in range(5)]
    record = asyncio.run(MatchRunner(Edible(), EdibleConfig(), agents, games=1, seed=11).run())
    data = json.loads(json.dumps(replay.to_json(record)))
    assert replay.verify(data) == []
    first = data["games"][0]["actions"][0][1]
    assert first["type"] == "Place"
    first["card"] = "sausage" if first["card"] == "boot" else "boot"
    problems = replay.verify(data)
    assert any("digest mismatch" in problem for problem in problems)


def test_duplicate_deals_replay_each_deal_once_per_rotation() -> None:
    agents = [InProcessAgent(load_bot("edible", "builtin:random")) for _ in range(3)]
    record = asyncio.run(MatchRunner(Edible(), EdibleConfig(), agents, games=6, seed=4, duplicate=True).run())
    seeds = [game.seed for game in record.games]
    assert seeds[0] == seeds[1] == seeds[2] != seeds[3] == seeds[4] == seeds[5]
    assert [game.seating for game in record.games[:3]] == [(0, 1, 2), (2, 0, 1), (1, 2, 0)]
    data = json.loads(json.dumps(replay.to_json(record)))
    assert data["duplicate"] is True and replay.verify(data) == []
    data["duplicate"] = False
    assert any("seed does not derive" in problem for problem in replay.verify(data))
