"""Bots in other languages in the real bubblewrap sandbox, through their manifest: the command
runs from the bot's folder, a program of the bot's own is executable, and memory is limited by
what a runtime uses rather than what it reserves (Node.js reserves far more than 512 MiB of
address space, and died under the old RLIMIT_AS)."""

from __future__ import annotations

import shutil
from pathlib import Path

from sandboxed import GAMES, bubblewrap, lines_starting, no_bot_process_outlives_a_match, play

from arena.manifest import MANIFEST, python_runtime
from arena.runner.terms import Status

__all__ = ["no_bot_process_outlives_a_match"]
STARTER = Path(__file__).resolve().parents[2] / "sdk" / "examples" / "edible_starter.py"


def bot_folder(folder: Path, manifest: str, **files: str) -> Path:
    folder.mkdir()
    (folder / MANIFEST).write_text(manifest)
    for name, text in files.items():
        (folder / name).write_text(text)
    return folder


def statuses(folder: Path, sandbox_mb: int = 512) -> tuple[set[Status], str]:
    record = play([str(folder), "builtin:random"], bubblewrap(memory_mb=sandbox_mb))
    assert len(record.games) == GAMES
    return {game.statuses[game.seating.index(0)] for game in record.games}, record.logs[0]


def test_a_python_bot_may_say_how_it_runs_too(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "bot", 'run = ["python3", "bot.py"]', **{"bot.py": STARTER.read_text()})
    found, log = statuses(folder)
    assert found == {Status.OK}, log


def test_a_program_of_the_bots_own_is_made_executable_and_runs(tmp_path: Path) -> None:
    # A shell script standing for a static binary: no mode bit survives an upload, the manifest's
    # program gets one; ``bot.py`` is found relative to the folder it runs from.
    start = f'#!/bin/sh\necho "running in $(pwd)" >&2\nexec {python_runtime().interpreter} bot.py\n'
    folder = bot_folder(tmp_path / "bot", 'run = ["./start"]', start=start, **{"bot.py": STARTER.read_text()})
    found, log = statuses(folder)
    assert found == {Status.OK}, log
    assert lines_starting(log, "running in ") == ["running in /bot"]


def test_a_program_that_cannot_be_run_is_the_bots_crash_with_why(tmp_path: Path) -> None:
    folder = bot_folder(tmp_path / "bot", 'run = ["./bot"]', bot="neither a binary nor a script\n")
    found, log = statuses(folder)
    assert found == {Status.CRASH}, log
    assert "arena: cannot run the bot's command /bot/bot: Exec format error" in log


NODE_ALLOCATES = """
const chunks = [];
const megabytes = Number(process.argv[2]);
for (let i = 0; i < megabytes / 8; i++) chunks.push(new Float64Array(1024 * 1024).fill(i));
console.error(`node allocated ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
"""


def test_node_runs_in_the_sandbox_and_its_memory_is_limited_by_what_it_uses(tmp_path: Path) -> None:
    assert shutil.which("node"), "Node.js is installed by deploy/setup.sh"
    # 300 MiB in use is within the 512 MiB limit (and node reserves gigabytes of address space).
    fits = bot_folder(tmp_path / "fits", 'run = ["node", "bot.js", "300"]', **{"bot.js": NODE_ALLOCATES})
    found, log = statuses(fits)
    assert found == {Status.CRASH}, log  # it never connects: what matters is that it ran
    allocated = int(lines_starting(log, "node allocated ")[0].split()[2])
    assert 300 <= allocated < 512, log
    # 2 GiB is not: the cgroup's limit stops it, and the arena says so.
    greedy = bot_folder(tmp_path / "greedy", 'run = ["node", "bot.js", "2048"]', **{"bot.js": NODE_ALLOCATES})
    found, log = statuses(greedy)
    assert found == {Status.MEMORY}, log
    assert "went over its memory limit" in log
    assert lines_starting(log, "node allocated ") == []
