"""Replays: an edited action list is caught even when it would replay to the same end; live replays."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot
from arena.games.edible import Edible, EdibleConfig
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import GameRecord, MatchRecord, MatchRunner


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


def test_a_live_replay_holds_the_games_finished_so_far(tmp_path: Path) -> None:
    path = tmp_path / "match.live.jsonl"
    path.write_text("left by an earlier attempt\n")
    live = replay.LiveReplay(path)
    assert replay.load_live(path) is None  # emptied: nothing of the earlier attempt shows
    seen: list[dict[str, Any]] = []

    def on_game(record: MatchRecord, game: GameRecord) -> None:
        live.add(record, game)
        data = replay.load_live(path)
        assert data is not None
        seen.append(data)

    agents = [InProcessAgent(load_bot("edible", "builtin:random")) for _ in range(3)]
    record = asyncio.run(MatchRunner(Edible(), EdibleConfig(), agents, games=3, seed=5).run(on_game))
    whole = json.loads(json.dumps(replay.to_json(record)))
    assert [len(data["games"]) for data in seen] == [1, 2, 3]
    assert seen[-1]["games"] == whole["games"] and replay.verify(seen[-1]) == []
    assert {key: value for key, value in seen[0].items() if key not in ("games", "duration_s")} == {
        key: value for key, value in whole.items() if key not in ("games", "duration_s")
    }
    with path.open("a") as out:
        out.write('{"index": 3, "seed"')  # a game line still being written
    data = replay.load_live(path)
    assert data is not None and len(data["games"]) == 3
    live.discard()
    assert not path.exists() and replay.load_live(path) is None
    path.write_text('{"schema": "something else"}\n{}\n')
    with pytest.raises(replay.ReplayError, match=r"not a card-arena\.replay file"):
        replay.load_live(path)
