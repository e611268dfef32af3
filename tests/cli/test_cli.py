"""The ``arena`` command, run as a user would run it."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from ctrl_c import ctrl_c

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
        ("bot", None, "a bot folder needs an arena-bot.toml saying how to run it"),  # a folder
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


def test_bot_check_reports_each_situation_and_exits_1_on_a_failure(tmp_path: Path) -> None:
    """One line per situation and a summary; the failing one names its decision and the fault."""
    root = Path(__file__).resolve().parents[2]
    starter, bots = root / "sdk" / "examples" / "edible_starter.py", root / "tests" / "bots"
    good = arena("bot", "check", str(starter), "--game", "edible", "--sandbox", "none", cwd=tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.splitlines()[-1].startswith("edible: 11 situations, all passed")
    bad = arena(
        "bot", "check", str(bots / "blind_misser.py"), "--game", "edible", "--sandbox", "none", cwd=tmp_path
    )
    assert bad.returncode == 1, bad.stdout + bad.stderr
    failed = [line for line in bad.stdout.splitlines() if line.startswith("FAIL")]
    assert failed == [
        "FAIL  edible: blind pick of the challenger's card: seed 1, 3 seats, decision 8 (seat 1): "
        "illegal_action: PickBlind(position=4): PickBlind(position=4): pick a position 0..3 of the "
        "challenger's cards"
    ]
    assert "edible: 11 situations, 1 failed" in bad.stdout and "---- bot log ----" in bad.stdout


def test_help_works_for_arena_and_every_subcommand(tmp_path: Path) -> None:
    commands = list(command_tree(build_parser()))
    assert ("play",) in commands and ("ladder",) in commands and len(commands) > 10
    for words in commands:
        result = arena(*words, "--help", cwd=tmp_path)
        assert result.returncode == 0 and result.stderr == "", (words, result.stderr)
        assert result.stdout.startswith("usage: arena"), (words, result.stdout)


BROKER_WITH_A_TYPO = "rdis://:hunter2@127.0.0.1:6379/0"
"""A mistyped broker URL scheme, with a password that must never be printed."""

SELF_TEST = ["builtin:random", "--against", "builtin:random", "--game", "edible"]
"""``arena bot test``'s arguments for a bot against itself, to which each bad case adds one."""

BAD_ARGUMENTS: dict[tuple[str, ...], list[tuple[list[str], str]]] = {
    (): [([], "required: COMMAND"), (["chess"], "invalid choice: 'chess'")],
    ("games",): [(["extra"], "unrecognized arguments: extra")],
    ("runtimes",): [(["node"], "unrecognized arguments: node")],
    ("play",): [
        (["chess", "builtin:random", "builtin:random"], "unknown game 'chess'"),
        (["edible", "missing.py", "builtin:random"], "missing.py: no such bot file"),
        (["edible", "notes.txt", "builtin:random"], "notes.txt: not a bot"),
        (["edible", ".", "builtin:random"], ".: a bot folder needs an arena-bot.toml"),
        (["edible", "builtin:random"], "2..6 seats, not 1"),
        (["edible", "builtin:random", "builtin:random", "--games", "0"], "0 must be at least 1"),
        (["edible", "builtin:random", "builtin:random", "--config", "{bad"], "--config is not valid JSON"),
    ],
    ("bot",): [(["fly"], "invalid choice: 'fly'")],
    ("bot", "validate"): [
        (["missing.py", "--game", "edible"], "missing.py: no such file or folder"),
        (["notes.txt", "--game", "edible"], "notes.txt: submit a .py file, a .zip or a folder"),
        (["bot.py", "--game", "chess"], "unknown game 'chess'"),
    ],
    ("bot", "check"): [
        (["missing.py", "--game", "edible"], "missing.py: no such bot file"),
        (["notes.txt", "--game", "edible"], "notes.txt: not a bot"),
        (["bot.py", "--game", "chess"], "unknown game 'chess'"),
        (["bot.py"], "required: --game"),
        (["bot.py", "--game", "edible", "--sandbox", "jail"], "invalid choice: 'jail'"),
    ],
    ("bot", "submit"): [
        (["missing.py", "--name", "sly", "--game", "edible"], "missing.py: no such file or folder"),
        (["bot.py", "--name", "builtin:sly", "--game", "edible"], "a bot name has 1 to 64"),
        (["bot.py", "--game", "edible"], "required: --name"),
    ],
    ("bot", "test"): [
        (["builtin:random", "--against", "builtin:random", "--game", "chess"], "unknown game 'chess'"),
        (["builtin:random", "--game", "edible"], "required: --against"),
        (
            ["builtin:random", "--against", "builtin:random", "--game", "edible", "--alpha", "2"],
            "alpha must be",
        ),
        (
            ["builtin:random", "--against", "builtin:random", "--game", "edible", "--max-games", "0"],
            "at least 1",
        ),
    ],
    ("db",): [([], "required: ACTION")],
    ("db", "upgrade"): [
        (["--db", "nosuch://ada:hunter2@127.0.0.1/arena"], "names no database arena can use ('nosuch')"),
        (["--db", "hunter2"], "database URL (--db or ARENA_DATABASE_URL) is not a URL"),
    ],
    ("user",): [(["delete"], "invalid choice: 'delete'")],
    ("user", "create"): [([""], "a user name has 1 to 64"), (["bob", "--token", "forged"], "not valid")],
    ("user", "password"): [(["nobody"], "no user 'nobody'")],
    ("tournament",): [([], "required: ACTION")],
    ("tournament", "create"): [
        (
            ["--game", "edible", "--bots", "builtin:random", "builtin:heuristic", "--seats", "3"],
            "2 bots cannot fill a 3-seat match",
        ),
        (["--game", "edible", "--bots", "builtin:random", "nobody"], "no edible bot named 'nobody'"),
        (["--game", "edible", "--bots", "builtin:random", "builtin:heuristic", "--config", "{bad"], "JSON"),
        (
            [
                "--game",
                "edible",
                "--bots",
                "builtin:random",
                "builtin:heuristic",
                "--config",
                '{"action_cap": -5}',
            ],
            "action_cap must be at least 1",
        ),
        (
            ["--game", "edible", "--bots", "builtin:random", "builtin:heuristic", "--rounds", "0"],
            "at least 1",
        ),
    ],
    ("tournament", "run"): [
        (["42"], "no tournament 42"),
        (["-1"], "-1 must be at least 1"),
        (["42", "--executor", "celery"], "ARENA_BROKER_URL has an unknown scheme 'rdis'"),
    ],
    ("tournament", "status"): [(["42"], "no tournament 42"), (["abc"], "'abc' is not a whole number")],
    ("tournament", "retry"): [(["42"], "no tournament 42"), ([], "required: id")],
    ("ladder",): [(["chess"], "unknown game 'chess'"), ([], "required: game")],
    ("serve",): [
        (["--port", "99999"], "99999 must be at most 65535"),
        (["--executor", "celery", "--port", "1"], "ARENA_BROKER_URL has an unknown scheme 'rdis'"),
    ],
    ("scheduler",): [
        (["--executor", "celery"], "ARENA_BROKER_URL has an unknown scheme 'rdis'"),
        (["--queue-ahead", "0"], "at least 1"),
        (["--executor", "ray"], "invalid choice: 'ray'"),
        (["--max-matches", "0"], "at least 1"),
        (["--max-matches", "3", "--no-ladder"], "--max-matches counts ladder matches"),
    ],
    ("worker",): [
        ([], "ARENA_BROKER_URL has an unknown scheme 'rdis'"),
        (["--concurrency", "0"], "at least 1"),
    ],
    ("match",): [(["delete"], "invalid choice: 'delete'")],
    ("match", "list"): [(["42"], "no tournament 42"), (["0"], "0 must be at least 1")],
    ("match", "show"): [(["42"], "no match 42"), ([], "required: id")],
    ("match", "save"): [(["42"], "no match 42"), (["abc"], "'abc' is not a whole number")],
    ("match", "log"): [(["42", "--seat", "0"], "no match 42"), (["42"], "required: --seat")],
    ("replay",): [(["play"], "invalid choice: 'play'")],
    ("replay", "show"): [
        (["missing.json"], "missing.json: cannot read a replay"),
        (["broken.json"], "broken.json: cannot read a replay"),
        (
            ["replays/edible-game.json", "--game", "9"],
            "replays/edible-game.json has 1 game(s), numbered from 0",
        ),
    ],
    ("replay", "verify"): [
        (["notes.txt"], "notes.txt: cannot read a replay"),
        (["empty.json"], "empty.json: not a card-arena.replay file"),
    ],
    ("replay", "rerun"): [
        (["missing.json", "--seat", "0", "--bot", "builtin:random"], "missing.json: cannot read a replay"),
        (["broken.json", "--seat", "0", "--bot", "builtin:random"], "broken.json: cannot read a replay"),
        (["empty.json", "--seat", "0", "--bot", "builtin:random"], "not a card-arena.replay file"),
        (["replays/edible-game.json", "--seat", "0"], "required: --bot"),
        (
            ["replays/edible-game.json", "--seat", "2", "--bot", "builtin:random"],
            "--seat 2: replays/edible-game.json has 2 seats, numbered from 0",
        ),
        (
            ["replays/edible-game.json", "--seat", "0", "--bot", "builtin:caller"],
            "builtin:caller: no such built-in bot for edible",
        ),
        (["replays/edible-game.json", "--seat", "0", "--bot", "missing.py"], "missing.py: no such bot file"),
        (
            ["replays/edible-game.json", "--seat", "0", "--bot", "builtin:random", "--others", "bot.py"],
            "--others bot.py: the other seats fall back to a built-in bot",
        ),
        (
            ["replays/edible-game.json", "--seat", "0", "--bot", "builtin:random", "--games", "3"],
            "--games 3: replays/edible-game.json has 1 game(s)",
        ),
    ],
}


def test_every_command_refuses_bad_arguments_with_one_clear_line(tmp_path: Path) -> None:
    """Missing files, unknown names, out-of-range numbers, malformed JSON and URLs: every command
    answers with one line on stderr that names the problem, a non-zero exit and no traceback."""
    assert set(BAD_ARGUMENTS) == set(command_tree(build_parser())), "every command has bad arguments"
    (tmp_path / "notes.txt").write_text("not a bot\n")
    (tmp_path / "bot.py").write_text("from sdk import Bot\n")
    (tmp_path / "broken.json").write_text('{"format": ')
    (tmp_path / "empty.json").write_text("{}")
    played = arena(
        "play", "edible", "builtin:random", "builtin:random", "--games", "1", "--in-process", cwd=tmp_path
    )
    assert played.returncode == 0, played.stderr
    next((tmp_path / "replays").glob("edible-*.json")).rename(tmp_path / "replays" / "edible-game.json")
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    env |= {"ARENA_HOME": str(tmp_path / "home"), "ARENA_BROKER_URL": BROKER_WITH_A_TYPO}
    # The store first, and its local admin: the commands below run at once and must not race to make them.
    subprocess.run(
        [sys.executable, "-m", "arena.cli", "user", "create", "ada"], cwd=tmp_path, env=env, check=True
    )

    def attempt(case: tuple[tuple[str, ...], list[str], str]) -> str | None:
        words, args, message = case
        command = [sys.executable, "-m", "arena.cli", *words, *args]
        try:
            result = subprocess.run(
                command,
                cwd=tmp_path,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=60,
            )
        except subprocess.TimeoutExpired:
            return f"arena {' '.join([*words, *args])}: still running after 60 s"
        lines = result.stderr.strip().splitlines()
        ok = (
            result.returncode not in (0, 1)
            and len(lines) == 1
            and lines[0].startswith("arena")
            and "error: " in lines[0]
            and message in lines[0]
            and "Traceback" not in result.stdout + result.stderr
            and "hunter2" not in result.stdout + result.stderr
        )
        return None if ok else f"arena {' '.join([*words, *args])}: exit {result.returncode}\n{result.stderr}"

    cases = [(words, args, message) for words, bad in BAD_ARGUMENTS.items() for args, message in bad]
    with ThreadPoolExecutor(max_workers=4) as pool:
        failures = [failure for failure in pool.map(attempt, cases) if failure]
    assert not failures, "\n".join(failures)


def test_ctrl_c_on_a_match_ends_it_with_one_line(tmp_path: Path) -> None:
    """Ctrl-C mid-match: exit status 130 and a short message, no traceback."""
    args = ["play", "edible", "builtin:heuristic", "builtin:random", "--games", "100000"]
    play = ctrl_c(args, tmp_path, ready=(tmp_path / "replays").exists)  # made as the match starts
    assert play.returncode == 130, play.stdout + play.stderr
    assert play.stderr.strip().splitlines()[-1] == "arena: interrupted"
    assert "Traceback" not in play.stdout + play.stderr


def test_commands_started_together_on_a_new_data_folder_all_work(tmp_path: Path) -> None:
    """Each makes the embedded store's schema at first use; started at once, they used to race
    (`table users already exists`)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    env["ARENA_HOME"] = str(tmp_path / "home")
    command = [sys.executable, "-m", "arena.cli", "ladder", "edible"]
    processes = [
        subprocess.Popen(
            command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(6)
    ]
    outcomes = [(process.wait(timeout=120), process.communicate()[1]) for process in processes]
    assert outcomes == [(0, "")] * 6, outcomes
