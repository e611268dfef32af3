"""Several arena processes on one machine, each with a temp folder of its own (services with a
private /tmp, containers that share the host's cgroups), in pid namespaces of their own or not,
never give one slot (a uid and its cgroups) to two live bots, and one's release of a slot never
touches the other's bots (issue 35 item 2).

The arenas are real processes (``arena_process.py`` beside this file) playing in the real
bubblewrap sandbox; the bot that tells is ``process_filler.py``, which keeps its slot's process
limit nearly full for its whole match: a bot given the same uid or cgroups at the same time
cannot start, or crashes, and a release of its slot kills the other arena's bot.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sandboxed import no_bot_process_outlives_a_match, stage

ROOT = Path(__file__).resolve().parents[2]
ARENA = Path(__file__).resolve().with_name("arena_process.py")
FILLER = ROOT / "tests" / "bots" / "hostile" / "process_filler.py"
PLAYING_S = 6.0
"""How long both play, together: each starts once both are ready."""
PROCESSES = 24

pytestmark = pytest.mark.bots_in_other_processes
__all__ = ["no_bot_process_outlives_a_match"]  # the autouse fixture: no bot outlives the test


def test_arenas_with_temp_folders_or_pid_namespaces_of_their_own_share_no_slot(tmp_path: Path) -> None:
    filler = str(stage(tmp_path / "filler", FILLER))
    # Each arena's filler plays where another's first honest bot would take the same uid.
    pid_namespace = ["unshare", "--pid", "--fork", "--mount-proc"]
    arenas = {
        "host": ([], "tmp-a", [filler, "builtin:random"]),
        "own pid namespace": (pid_namespace, "tmp-b", ["builtin:random", filler]),
        "own pid namespace, the host's temp folder": (pid_namespace, "tmp-a", [filler, "builtin:random"]),
    }
    running = {}
    for name, (prefix, folder, specs) in arenas.items():
        temp = tmp_path / folder
        temp.mkdir(exist_ok=True)
        command = [*prefix, sys.executable, str(ARENA), str(PROCESSES), *specs]
        running[name] = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "TMPDIR": str(temp)},
        )
    for name, process in running.items():
        assert process.stdout is not None and process.stdin is not None
        assert process.stdout.readline() == "ready\n", (name, process.communicate()[1][-3000:])
    for process in running.values():
        assert process.stdin is not None
        process.stdin.write(f"{PLAYING_S}\n")
        process.stdin.flush()
    reports = {}
    for name, process in running.items():
        out, err = process.communicate(timeout=PLAYING_S + 60)
        assert process.returncode == 0, (name, err[-3000:])
        reports[name] = json.loads(out)
    for name, report in reports.items():
        assert report["infrastructure"] == [], (name, report)
        # Every seat ok in every game: the honest bot never crashed, nor did the filler.
        assert report["not_ok"] == [0, 0], (name, report)
