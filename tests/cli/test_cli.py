"""The ``arena`` command, run as a user would run it."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.cli import build_parser


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )


def test_games_lists_every_game_with_its_rules_page(tmp_path: Path) -> None:
    result = arena("games", cwd=tmp_path)
    assert result.returncode == 0
    assert "edible" in result.stdout and "arena/games/edible/RULES.md" in result.stdout
    assert "builtin:heuristic" in result.stdout


def test_play_over_grpc_matches_in_process_and_replays_verify(tmp_path: Path) -> None:
    bots = ["builtin:heuristic", "builtin:random", "builtin:random"]
    grpc_run = arena(
        "play", "edible", *bots, "--games", "20", "--seed", "7", "--replays", "grpc", cwd=tmp_path
    )
    assert grpc_run.returncode == 0, grpc_run.stderr
    local_run = arena(
        "play",
        "edible",
        *bots,
        "--games",
        "20",
        "--seed",
        "7",
        "--in-process",
        "--replays",
        "local",
        cwd=tmp_path,
    )
    assert local_run.returncode == 0, local_run.stderr
    assert "heuristic" in grpc_run.stdout and "decisions/s" in grpc_run.stdout
    grpc_file = next((tmp_path / "grpc").glob("edible-*.json"))
    local_file = next((tmp_path / "local").glob("edible-*.json"))
    grpc_replay, local_replay = json.loads(grpc_file.read_text()), json.loads(local_file.read_text())
    # Same seed, same bots: the same games, decision for decision, whatever the transport.
    for over_grpc, in_process in zip(grpc_replay["games"], local_replay["games"], strict=True):
        assert [action[:2] for action in over_grpc["actions"]] == [
            action[:2] for action in in_process["actions"]
        ]
        assert over_grpc["result"] == in_process["result"]
    verified = arena("replay", "verify", str(grpc_file), cwd=tmp_path)
    assert verified.returncode == 0 and verified.stdout.startswith("OK")
    shown = arena("replay", "show", str(grpc_file), "--game", "0", cwd=tmp_path)
    assert shown.returncode == 0 and "== game 0" in shown.stdout and "== game 1" not in shown.stdout
    logs = list((tmp_path / "grpc").glob("edible-*-logs/seat*.log"))
    assert len(logs) == 3


@pytest.mark.parametrize("seats", [2, 8])
def test_believe_plays_over_grpc_with_two_to_eight_seats(tmp_path: Path, seats: int) -> None:
    bots = (["builtin:caller", "builtin:honest", "builtin:random"] * 3)[:seats]
    run = arena("play", "believe", *bots, "--games", "2", "--seed", "3", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "all ok" in run.stdout and "timeout" not in run.stdout and "illegal" not in run.stdout
    path = next((tmp_path / "replays").glob("believe-*.json"))
    assert arena("replay", "verify", str(path), cwd=tmp_path).returncode == 0


def test_a_tampered_replay_is_reported(tmp_path: Path) -> None:
    run = arena(
        "play", "edible", "builtin:random", "builtin:random", "--games", "2", "--in-process", cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    path = next((tmp_path / "replays").glob("*.json"))
    data = json.loads(path.read_text())
    data["games"][0]["seed"] += 1
    path.write_text(json.dumps(data))
    verified = arena("replay", "verify", str(path), cwd=tmp_path)
    assert verified.returncode == 1 and "MISMATCH" in verified.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "chess", "builtin:random", "builtin:random"], "unknown game 'chess'"),
        (["play", "edible", "builtin:random"], "2..6 seats, not 1"),
        (["play", "edible", "builtin:nope", "builtin:random"], "no such built-in bot"),
        (["play", "edible", "missing.py", "builtin:random"], "no such bot file"),
        (["play", "edible", "builtin:random", "builtin:random", "--games", "0"], "must be at least 1"),
        (["play", "edible", "builtin:random", "builtin:random", "--config", "{bad"], "not valid JSON"),
        (
            ["play", "edible", "builtin:random", "builtin:random", "--config", '{"colour": 1}'],
            "unknown config field",
        ),
        (["replay", "verify", "nothing.json"], "cannot read a replay"),
    ],
)
def test_bad_input_gets_a_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    result = arena(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("name", "content", "problem"),
    [
        ("bot.js", "console.log('I play every game');\n", "not a bot"),
        ("bot.py", "function play() { return 1; }\n", "not a bot: not valid Python (line 1"),
        ("bot.py", "a\0b", "not a bot: not valid Python"),
        ("bot", None, "not a bot"),  # a folder
    ],
)
def test_what_cannot_be_a_bot_is_refused_before_the_match(
    tmp_path: Path, name: str, content: str | None, problem: str
) -> None:
    path = tmp_path / name
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    for mode in ([], ["--in-process"]):
        result = arena("play", "edible", str(path), "builtin:random", "--games", "2", *mode, cwd=tmp_path)
        assert result.returncode == 2, result.stdout
        message = result.stderr.strip()
        assert "\n" not in message and "Traceback" not in message
        assert f"{path}: {problem}" in message and "a bot is builtin:NAME" in message, message
        assert "a Python file (.py) that defines one sdk.Bot subclass" in message
        assert not (tmp_path / "replays").exists()  # no match was played


def command_tree(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every command's words, from ``arena`` itself down to each subcommand."""
    yield path
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from command_tree(child, (*path, name))


def test_help_works_for_arena_and_every_subcommand(tmp_path: Path) -> None:
    commands = list(command_tree(build_parser()))
    assert ("play",) in commands and ("ladder",) in commands and len(commands) > 10
    for words in commands:
        result = arena(*words, "--help", cwd=tmp_path)
        assert result.returncode == 0 and result.stderr == "", (words, result.stderr)
        assert result.stdout.startswith("usage: arena"), (words, result.stdout)
