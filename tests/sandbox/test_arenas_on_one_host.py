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
import time
from pathlib import Path

import pytest
from sandboxed import GAMES, bubblewrap, no_bot_process_outlives_a_match, play, stage

import arena.sandbox.bubblewrap as bubblewrap_module
from arena.runner.terms import Status
from arena.sandbox.bubblewrap import SLOT_UIDS

ROOT = Path(__file__).resolve().parents[2]
ARENA = Path(__file__).resolve().with_name("arena_process.py")
FILLER = ROOT / "tests" / "bots" / "process_filler.py"
PLAYING_S = 6.0
"""How long both play, together: each starts once both are ready."""
PROCESSES = 24

# Run alone, after the parallel tests (deploy/test.sh): two arenas share the host's slots.
pytestmark = [pytest.mark.bots_in_other_processes, pytest.mark.serial]
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


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def slot_processes_under(ancestor: int) -> dict[int, set[int]]:
    """The live processes of each slot uid among the descendants of ``ancestor``."""
    parents, uids = {}, {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue
        if not fields["State"].strip().startswith("Z"):
            pid = int(status.parent.name)
            parents[pid], uids[pid] = int(fields["PPid"]), int(fields["Uid"].split()[0])
    slots: dict[int, set[int]] = {}
    for pid, uid in uids.items():
        above = parents.get(pid)
        while above not in (None, 0, ancestor):
            above = parents.get(above)
        if above == ancestor and uid in SLOT_UIDS:
            slots.setdefault(uid, set()).add(pid)
    return slots


def test_a_slot_whose_arena_died_holding_it_is_emptied_before_it_is_used_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An arena process dies while its filler holds its slot's process limit full: the slot's lock
    # goes at once, its bots 100-500 ms later. This process claims that slot first.
    filler = str(stage(tmp_path / "filler", FILLER))
    dying = subprocess.Popen(
        [sys.executable, str(ARENA), str(PROCESSES), filler, "builtin:random"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
    )
    assert dying.stdout is not None and dying.stdin is not None
    assert dying.stdout.readline() == "ready\n"
    dying.stdin.write("60\n")
    dying.stdin.flush()
    deadline = time.monotonic() + 30
    while not (full := {uid: pids for uid, pids in slot_processes_under(dying.pid).items() if len(pids) > 8}):
        assert time.monotonic() < deadline, "the filler never filled its slot"
        time.sleep(0.01)
    uid, fillers = next(iter(full.items()))
    monkeypatch.setattr(
        bubblewrap_module, "SLOT_UIDS", [uid, *(other for other in SLOT_UIDS if other != uid)]
    )
    sandbox = bubblewrap(processes=PROCESSES)
    dying.kill()
    dying.wait()  # its locks went with it
    claimed, lock = sandbox._claim_uid()
    with lock:
        assert claimed == uid
        # Nothing of the dead arena's is left in the slot when it is handed out.
        assert [pid for pid in fillers if alive(pid)] == []
    sandbox.warm = False
    record = play(["builtin:random", "builtin:random"], sandbox)
    assert uid in sandbox.uids
    assert [set(game.statuses) for game in record.games] == [{Status.OK}] * GAMES, record.logs
