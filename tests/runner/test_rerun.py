"""`arena replay rerun`: a recorded match dealt again with a new bot in one seat, the other seats
playing their recorded decisions while they are legal, then a built-in bot."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sandboxed import bubblewrap, processes_holding, run_bounded

from arena import rerun
from arena.games.base import IllegalAction
from arena.games.registry import get_game
from arena.runner import replay
from arena.runner.records import MatchRecord
from arena.sandbox import NoSandbox, Sandbox
from arena.transport.process import play_match

SEED = 20240611
MATCHES = {
    # game: the recorded bots, agent by agent; the author's seat is 1
    "edible": ["builtin:heuristic", "builtin:random", "builtin:random"],
    "believe": ["builtin:caller", "builtin:random", "builtin:honest"],
    "kozel": ["builtin:heuristic", "builtin:random", "builtin:random", "builtin:heuristic"],
}
SEAT = 1
GAMES = 4
DUPLICATE_GAMES = 6
"""Two deals for three seats: legs of two games each, so that legs do not play the match's games in order."""


def record(tmp_path: Path, game_name: str, duplicate: bool = False) -> Path:
    """A match of process bots, as `arena play` plays it, written as a replay."""
    game = get_game(game_name)
    played = asyncio.run(
        play_match(
            game,
            game.config_type(),
            MATCHES[game_name],
            NoSandbox(),
            games=DUPLICATE_GAMES if duplicate else GAMES,
            seed=SEED,
            duplicate=duplicate,
        )
    )
    return replay.write(played, tmp_path / "recorded")


def play(path: Path, bot: str, sandbox: Sandbox | None = None) -> tuple[rerun.Rerun, MatchRecord, Any]:
    plan = rerun.prepare(path, SEAT, bot, "builtin:random", None)
    new, outcomes = run_bounded(lambda: rerun.play(plan, sandbox or NoSandbox(), "author"))
    return plan, new, outcomes


def as_read(played: MatchRecord) -> dict[str, Any]:
    """A record as its replay file reads back."""
    data: dict[str, Any] = json.loads(json.dumps(replay.to_json(played)))
    return data


def seat_actions(actions: list[list[Any]], seat: int) -> list[Any]:
    return [action for acting, action, *_ in actions if acting == seat]


@pytest.mark.parametrize(("game_name", "duplicate"), [("edible", True), ("believe", False), ("kozel", False)])
def test_the_same_bot_in_the_same_seat_follows_the_record_exactly(
    tmp_path: Path, game_name: str, duplicate: bool
) -> None:
    path = record(tmp_path, game_name, duplicate)
    recorded = replay.load(path)
    plan, new, outcomes = play(path, MATCHES[game_name][SEAT])
    games = len(recorded["games"])
    assert len(new.games) == games == (DUPLICATE_GAMES if duplicate else GAMES)
    assert [outcome.diverged_at for outcome in outcomes] == [None] * games
    assert [outcome.fell_back for outcome in outcomes] == [{}] * games
    rerun_data = as_read(new)
    assert rerun_data["duplicate"] is duplicate and rerun_data["seed"] == SEED
    for before, after in zip(recorded["games"], rerun_data["games"], strict=True):
        assert [pair[:2] for pair in after["actions"]] == [pair[:2] for pair in before["actions"]]
        assert after["result"] == before["result"] and after["reveal"] == before["reveal"]
        assert after["statuses"] == ["ok"] * len(plan.data["seats"])
    assert replay.verify(rerun_data) == []
    report = rerun.report(plan, outcomes, "author")
    assert f"{games} of {games} game(s) followed the record" in report


@pytest.mark.parametrize(("game_name", "duplicate"), [("edible", True), ("believe", False), ("kozel", False)])
def test_another_bot_meets_the_recorded_decisions_until_they_are_illegal(
    tmp_path: Path, game_name: str, duplicate: bool
) -> None:
    path = record(tmp_path, game_name, duplicate)
    recorded = replay.load(path)
    game = get_game(game_name)
    others = [bot for bot in game.builtin_bots if bot != "random"]
    plan, new, outcomes = play(path, f"builtin:{others[0]}")
    rerun_data = as_read(new)
    assert replay.verify(rerun_data) == [], "every rerun game is played to its end, legally"
    assert rerun_data["seats"][0]["spec"] == f"recorded {MATCHES[game_name][0]}, then builtin:random"
    illegal_fallbacks = 0
    for outcome, before, after in zip(outcomes, recorded["games"], rerun_data["games"], strict=True):
        assert outcome.diverged_at is not None
        author = after["seating"].index(SEAT)
        assert outcome.seat == author and after["statuses"] == ["ok"] * len(after["seating"])
        states = replay.play_through(rerun_data, after["index"])
        state_before = {number: next(states).clone() for number in range(len(after["actions"]))}
        for seat in range(len(after["seating"])):
            if seat == author:
                continue
            old, now = seat_actions(before["actions"], seat), seat_actions(after["actions"], seat)
            if seat not in outcome.fell_back:
                assert now == old, "a seat that never fell back plays exactly its recorded decisions"
                continue
            decision = outcome.fell_back[seat]
            assert after["actions"][decision][0] == seat
            played = seat_actions(after["actions"][:decision], seat)
            assert played == old[: len(played)], "recorded decisions, in order, up to the fallback"
            if len(played) < len(old):  # the next recorded decision was not legal in the new game
                illegal_fallbacks += 1
                action = replay.action_from_json(game, old[len(played)])
                with pytest.raises(IllegalAction):
                    state_before[decision].clone().apply(action, random.Random(0))
    assert illegal_fallbacks > 0, "some recorded decision became illegal and the fallback bot took over"
    assert "diverged from the record at decision" in rerun.report(plan, outcomes, "author")


def test_a_replay_of_an_older_rules_version_is_refused(tmp_path: Path) -> None:
    path = record(tmp_path, "believe")
    data = json.loads(path.read_text())
    assert data["game_version"] == 2
    data["game_version"] = 1
    older = tmp_path / "believe-at-1.json"
    older.write_text(json.dumps(data))
    with pytest.raises(
        replay.ReplayError, match="played under believe@1, and this arena plays only believe@2"
    ):
        rerun.prepare(older, SEAT, "builtin:random", "builtin:random", None)
    data["game_version"], data["schema_version"] = 2, 1
    older.write_text(json.dumps(data))
    with pytest.raises(replay.ReplayError, match="schema version 1"):
        rerun.prepare(older, SEAT, "builtin:random", "builtin:random", None)


def test_a_tampered_replay_is_refused_before_any_bot_starts(tmp_path: Path) -> None:
    path = record(tmp_path, "edible")
    data = json.loads(path.read_text())
    data["seed"] += 1
    path.write_text(json.dumps(data))
    with pytest.raises(replay.ReplayError, match=r"does not replay as recorded.*seed does not derive"):
        rerun.prepare(path, SEAT, "builtin:random", "builtin:random", None)


def test_a_bot_file_reruns_in_bubblewrap(tmp_path: Path) -> None:
    """The author's bot is a file, run as a process in the bubblewrap sandbox; the new replay verifies."""
    path = record(tmp_path, "edible")
    folder = tmp_path / "mine"
    folder.mkdir()
    bot = folder / "first_legal.py"
    bot.write_text(
        "from sdk import Bot, run\n\n\n"
        "class FirstLegal(Bot):\n"
        "    def act(self, observation):\n"
        "        return self.legal_actions[0]\n\n\n"
        "run(FirstLegal())\n"
    )
    sandbox = bubblewrap()
    _, new, _ = play(path, str(bot), sandbox)
    assert sandbox.uids, "the bot ran in bubblewrap"
    assert sandbox.leftovers == [] and processes_holding(sandbox.uids, locked=True) == []
    assert [game.statuses[game.seating.index(SEAT)] for game in new.games] == ["ok"] * GAMES
    assert new.specs[SEAT] == str(bot)
    data = as_read(new)
    assert replay.verify(data) == []
    # The bot always plays the first legal action: every one of its decisions in the new replay is that.
    for game in new.games:
        states = replay.play_through(data, game.index)
        for state, (seat, action) in zip(states, game.actions, strict=False):
            if seat == game.seating.index(SEAT):
                assert action == state.legal_actions()[0]


def test_the_command_prints_each_game_and_writes_a_replay(tmp_path: Path) -> None:
    path = record(tmp_path, "kozel")

    def command(*args: str) -> subprocess.CompletedProcess[str]:
        """`arena replay rerun`, its bot in the bubblewrap sandbox (the default)."""
        return subprocess.run(
            [sys.executable, "-m", "arena.cli", "replay", "rerun", str(path), "--seat", str(SEAT), *args],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )

    same = command("--bot", "builtin:random", "--games", "2", "--replays", "new", "--quiet")
    assert same.returncode == 0, same.stderr
    assert "game 0: followed the record" in same.stdout and "game 1: followed the record" in same.stdout
    assert "game 2" not in same.stdout and "2 of 2 game(s) followed the record" in same.stdout
    assert "random (rec)" in same.stdout, "the results table"
    written = next((tmp_path / "new").glob("kozel-*.json"))
    assert replay.verify(replay.load(written)) == []
    other = command("--bot", "builtin:search", "--others", "builtin:heuristic", "--replays", "new", "--quiet")
    assert other.returncode == 0, other.stderr
    assert "diverged from the record at decision" in other.stdout
    assert "builtin:heuristic played on for seat" in other.stdout
