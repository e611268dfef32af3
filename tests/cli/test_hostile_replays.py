"""Replay files crafted against the ``arena replay`` commands, run as a user would run them: no
control byte but newline reaches the terminal, and a file beyond the limits or malformed ends in one
line and exit status 2, in bounded time and memory (issue 35 item 6)."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.games.base import MAX_CONFIG_VALUE
from arena.runner.replay import MAX_REPLAY_BYTES

MEMORY = 400 * 2**20
"""The address space each command gets: a small replay verifies in 300 MB of it."""
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f]")
"""Every control character but newline: none may reach a terminal."""
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b[31mFAKE: you win\x1b[0m\x9b31m\r\t"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """The command in a process of ``MEMORY`` bytes of address space (bytes out, decoded: a C1
    control is two bytes of UTF-8, one character here)."""

    def bounded() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))

    result = subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=cwd,
        capture_output=True,
        timeout=120,
        preexec_fn=bounded,
    )
    return subprocess.CompletedProcess(
        result.args,
        result.returncode,
        result.stdout.decode(errors="replace"),
        result.stderr.decode(errors="replace"),
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real two-game believe match's replay."""
    folder = tmp_path_factory.mktemp("played")
    run = arena(
        "play",
        "believe",
        "builtin:caller",
        "builtin:honest",
        "--games",
        "2",
        "--seed",
        "3",
        "--in-process",
        "--quiet",
        "--replays",
        ".",
        cwd=folder,
    )
    assert run.returncode == 0, run.stderr
    data: dict[str, Any] = json.loads(next(folder.glob("believe-*.json")).read_text())
    return data


def crafted(played: dict[str, Any], folder: Path, name: str = "crafted.json", **changes: Any) -> Path:
    data = {**json.loads(json.dumps(played)), **changes}
    path = folder / name
    path.write_text(json.dumps(data))
    return path


def refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit status 2 and one line on stderr saying why (naming ``words``), nothing else."""
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert result.stderr.startswith("arena: error: ") and result.stderr.count("\n") == 1, result.stderr[
        -2000:
    ]
    assert "Traceback" not in result.stderr and result.stdout == ""
    for word in words:
        assert word in result.stderr


def test_escape_sequences_in_a_replay_reach_no_terminal(played: dict[str, Any], tmp_path: Path) -> None:
    seats = json.loads(json.dumps(played["seats"]))
    seats[0]["name"] = ESCAPES
    games = json.loads(json.dumps(played["games"]))
    games[0]["faults"] = [{"decision": 0, "seat": 0, "agent": 0, "status": "crash", "detail": ESCAPES}]
    path = crafted(played, tmp_path, seats=seats, games=games)
    shown = arena("replay", "show", str(path), cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert "! crash: \\x1b]0;pwned" in shown.stdout and "0=\\x1b]0;pwned\\x07" in shown.stdout, (
        "shown, written out"
    )
    verified = arena("replay", "verify", str(path), cwd=tmp_path)
    assert verified.returncode == 0 and verified.stdout.startswith("OK"), verified.stderr
    rerun = arena(
        "replay",
        "rerun",
        str(path),
        "--seat",
        "1",
        "--bot",
        "builtin:random",
        "--sandbox",
        "none",
        "--quiet",
        "--replays",
        "rerun",
        cwd=tmp_path,
    )
    assert rerun.returncode == 0 and "FAKE: you win" in rerun.stdout, rerun.stderr
    named = tmp_path / f"{ESCAPES.replace('/', '')}.json"  # on stderr, in the error that names it
    missing = arena("replay", "verify", str(named), cwd=tmp_path)
    assert missing.returncode == 2 and "pwned" in missing.stderr
    for result in (shown, verified, rerun, missing):
        assert not CONTROL.search(result.stdout + result.stderr), CONTROL.findall(
            result.stdout + result.stderr
        )


@pytest.mark.parametrize("command", ["verify", "rerun"])
def test_a_deck_of_a_billion_cards_is_refused_naming_the_limit(
    played: dict[str, Any], tmp_path: Path, command: str
) -> None:
    path = crafted(played, tmp_path, config={**played["config"], "copies": 10**9})
    extra = (
        ["--seat", "0", "--bot", "builtin:random", "--sandbox", "none", "--quiet"]
        if command == "rerun"
        else []
    )
    refused(arena("replay", command, str(path), *extra, cwd=tmp_path), "'copies'", f"{MAX_CONFIG_VALUE}")


def test_lists_nested_a_hundred_thousand_deep_are_refused(played: dict[str, Any], tmp_path: Path) -> None:
    text = json.dumps(played)
    path = tmp_path / "nested.json"
    path.write_text(text.replace('"reveal": ', '"reveal": ' + "[" * 100_000 + "]" * 100_000 + ', "x": ', 1))
    refused(arena("replay", "verify", str(path), cwd=tmp_path), "nested.json", "nested too deep")


def test_a_file_of_empty_lists_is_refused_before_it_is_parsed(played: dict[str, Any], tmp_path: Path) -> None:
    """20 MB of ``[]``, within the size limit, would take some 480 MB parsed."""
    path = tmp_path / "lists.json"
    path.write_text(json.dumps({**played, "pad": [[]] * 5_000_000}, separators=(",", ":")))
    refused(arena("replay", "verify", str(path), cwd=tmp_path), "lists.json", "list or object per")


def test_a_file_of_a_few_hundred_megabytes_is_refused_unread(tmp_path: Path) -> None:
    """300 MB of zeros (a sparse file): read whole it would not fit the command's memory."""
    path = tmp_path / "junk.json"
    with path.open("wb") as file:
        file.truncate(300 * 10**6)
    refused(arena("replay", "verify", str(path), cwd=tmp_path), f"{MAX_REPLAY_BYTES // 2**20} MiB")


def _set(data: dict[str, Any], *keys: Any, value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(data))
    target = data
    for key in keys[:-1]:
        target = target[key]
    target[keys[-1]] = value
    return data


MALFORMED: dict[str, tuple[Any, ...]] = {
    "seats not a list": ("seats", 5),
    "a seat's name a number": ("seats", 0, "name", 7),
    "an index a string": ("games", 0, "index", "x"),
    "a seat out of range": ("games", 0, "actions", 0, 0, 9),
    "an action a number": ("games", 0, "actions", 0, 1, 3),
    "a result missing": ("games", 0, "result", None),
    "an action's field lists in a list": ("games", 0, "actions", 0, 1, "cards", [[1]]),
    "a seed of 4,000 digits": ("seed", 10**4000),
    "a fault detail an object": ("games", 0, "faults", [{"decision": 0, "status": "crash", "detail": {}}]),
    "the time limits a string": ("limits", {"decision_ms": "soon"}),
}
"""Changes that make a file no replay: every command refuses it."""
NOT_REPLAYING: dict[str, tuple[Any, ...]] = {
    "the next dealer missing": ("games", 0, "result", "detail", {}),
}
"""Changes that leave a replay that does not replay: shown, listed by verify, refused by rerun."""
RERUN = ["rerun", "--seat", "0", "--bot", "builtin:random", "--sandbox", "none", "--quiet"]


@pytest.mark.parametrize("change", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_replay_gets_one_line(
    played: dict[str, Any], tmp_path: Path, change: tuple[Any, ...]
) -> None:
    path = tmp_path / "malformed.json"
    path.write_text(json.dumps(_set(played, *change[:-1], value=change[-1])))
    for command in (["show"], ["verify"], RERUN):
        refused(arena("replay", *command, str(path), cwd=tmp_path), "malformed.json")


@pytest.mark.parametrize("change", NOT_REPLAYING.values(), ids=NOT_REPLAYING.keys())
def test_a_replay_that_does_not_replay_is_listed(
    played: dict[str, Any], tmp_path: Path, change: tuple[Any, ...]
) -> None:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(_set(played, *change[:-1], value=change[-1])))
    shown = arena("replay", "show", str(path), cwd=tmp_path)
    assert shown.returncode == 0 and "== game 1" in shown.stdout, shown.stderr
    verified = arena("replay", "verify", str(path), cwd=tmp_path)
    assert verified.returncode == 1 and verified.stderr == "", verified.stderr[-2000:]
    assert verified.stdout.startswith("MISMATCH") and "\n  game 0" in verified.stdout
    refused(arena("replay", *RERUN, str(path), cwd=tmp_path), "edited.json")
