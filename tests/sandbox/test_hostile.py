"""Hostile bots under the real bubblewrap sandbox, one per attack.

Each test plays a short match, the hostile bot against ``builtin:random``, and checks that the
match finishes every game, that the other seat stays ``ok``, that the hostile seat gets the
status its attack earns, that the attack had no effect outside the sandbox, and that no process
holding a bot uid the match used outlives it (helpers in ``tests/sandboxed.py``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sysconfig
import tempfile
from collections.abc import Coroutine
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from sandboxed import (
    BOT_SEEDS,
    CLOCKS,
    GAMES,
    SEED,
    Bubblewrap,
    bubblewrap,
    lines_starting,
    no_bot_process_outlives_a_match,
    play,
    play_hostile,
    run_bounded,
)
from sandboxed import stage as stage_bot

import arena
import sdk
from arena.games.edible import Edible, EdibleConfig
from arena.runner.records import MatchRecord
from arena.runner.terms import Limits, Status
from arena.sandbox import NoSandbox, Sandbox, SandboxLimits
from arena.sandbox.bubblewrap import PROC_OWN
from arena.transport.process import play_match

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots"
STARTER = ROOT / "sdk" / "examples" / "edible_starter.py"

__all__ = ["no_bot_process_outlives_a_match"]  # the autouse fixture, for every test here


class WithoutPidNamespace(Bubblewrap):
    """The real backend minus its pid namespace: its bots stand for processes that got out of
    their sandbox's namespace, which would otherwise kill them all when its init dies (their
    parent-death signal does not outlive setpriv's change of uid)."""

    # BubblewrapSandbox.unshare is inferred as a tuple of exactly five names.
    unshare = tuple(name for name in Bubblewrap.unshare if name != "pid")


def stage(folder: Path, bot: str, **target: Any) -> Path:
    """Copy the hostile ``bot`` into ``folder`` (its code folder), with ``target.json`` if asked."""
    return stage_bot(folder, HOSTILE / bot, **target)


# -- the network --


def test_tcp_to_the_arenas_loopback_never_connects(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        bot = stage(tmp_path / "code", "tcp_connect.py", port=port)
        log = play_hostile(bot, bubblewrap(), Status.OK)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert lines_starting(log, "connected") == []
    assert len(lines_starting(log, "blocked: ")) == 3, log
    # The seccomp filter refuses every socket family but AF_UNIX.
    assert f"blocked: 127.0.0.1:{port}: OSError(97, 'Address family not supported by protocol')" in log


def test_udp_to_the_arenas_loopback_never_arrives(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        receiver.setblocking(False)
        port = receiver.getsockname()[1]
        bot = stage(tmp_path / "code", "udp_send.py", port=port)
        log = play_hostile(bot, bubblewrap(), Status.OK)
        with pytest.raises(BlockingIOError):
            receiver.recvfrom(1024)
    assert lines_starting(log, "sent") == []
    assert f"blocked: 127.0.0.1:{port}: OSError(97, 'Address family not supported by protocol')" in log


def test_unix_sockets_outside_are_out_of_reach(tmp_path: Path) -> None:
    # An abstract socket (bound to the network namespace) and one in the file system, in a
    # world-accessible folder: the bot's uid could reach either if they were in its view.
    name = f"card-arena-test-{secrets.token_hex(8)}"
    folder = Path(tempfile.mkdtemp(prefix="card-arena-test-"))
    try:
        folder.chmod(0o755)
        path = folder / "outside.sock"
        with (
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as abstract,
            socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as named,
        ):
            abstract.bind("\0" + name)
            named.bind(str(path))
            path.chmod(0o777)
            for listener in (abstract, named):
                listener.listen()
                listener.setblocking(False)
            bot = stage(tmp_path / "code", "abstract_socket.py", abstract=name, path=str(path))
            log = play_hostile(bot, bubblewrap(), Status.OK)
            for listener in (abstract, named):
                with pytest.raises(BlockingIOError):
                    listener.accept()
    finally:
        shutil.rmtree(folder)
    assert lines_starting(log, "connected") == []
    assert len(lines_starting(log, "blocked: ")) == 4, log
    assert f"blocked: '\\x00{name}': ConnectionRefusedError(111, 'Connection refused')" in log
    assert f"blocked: '{path}': FileNotFoundError(2, 'No such file or directory')" in log


# -- secrets --


def test_a_secret_file_outside_cannot_be_read(tmp_path: Path) -> None:
    secret = f"card-arena-secret-{secrets.token_hex(16)}"
    folder = Path(tempfile.mkdtemp(prefix="card-arena-test-"))
    try:
        # World-readable, so that only the sandbox's view keeps it from the bot's uid.
        folder.chmod(0o755)
        path = folder / "secret.txt"
        path.write_text(secret)
        path.chmod(0o644)
        bot = stage(tmp_path / "code", "secret_reader.py", secret=str(path))
        log = play_hostile(bot, bubblewrap(), Status.OK)
    finally:
        shutil.rmtree(folder)
    assert secret not in log
    assert lines_starting(log, "read ") == []
    for attempt in (str(path), f"/proc/1/root{path}", f"/proc/self/root{path}", "/etc/shadow"):
        assert f"blocked: {attempt}: " in log


def test_the_arenas_environment_cannot_be_read_through_proc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = f"card-arena-secret-{secrets.token_hex(16)}"
    monkeypatch.setenv("CARD_ARENA_TEST_SECRET", secret)
    arena_pid = os.getpid()
    bot = stage(tmp_path / "code", "environ_reader.py", arena_pid=arena_pid)
    log = play_hostile(bot, bubblewrap(), Status.OK)
    assert secret not in log
    assert "CARD_ARENA_TEST_SECRET" not in log
    # Its own pid namespace: its sandbox's init, the holder that keeps the sandbox, and itself;
    # nothing of the host.
    visible = json.loads(lines_starting(log, "visible processes: ")[0].removeprefix("visible processes: "))
    assert visible == [1, 2, 3], log
    assert f"blocked: /proc/{arena_pid}/environ: FileNotFoundError" in log
    # The sandbox's init is root's, and bubblewrap is started with an empty environment anyway.
    assert "blocked: /proc/1/environ: PermissionError" in log or "read /proc/1/environ: b''" in log


class MaskedProc(Bubblewrap):
    """The real backend as on a kernel before procfs's ``subset=pid`` (Linux 5.8): bubblewrap's
    whole /proc, every entry outside the process folders masked."""

    def __init__(self, limits: SandboxLimits) -> None:
        super().__init__(limits, proc_subset=False)


@pytest.mark.parametrize("backend", [Bubblewrap, MaskedProc])
def test_the_machines_counters_in_proc_cannot_be_read(tmp_path: Path, backend: type[Bubblewrap]) -> None:
    """What /proc counts for the whole machine (load, memory, pressure, locks, ...) would be a
    channel between two bots at a table: outside its own processes' folders, a bot reads nothing
    there, listed or not."""
    sandbox = bubblewrap(backend)
    log = play_hostile(stage(tmp_path / "code", "proc_reader.py"), sandbox, Status.OK)
    verdicts = dict(line.split(": ", 1) for line in log.splitlines() if line.startswith("/proc/"))
    assert len(verdicts) >= 8, log
    for path, verdict in verdicts.items():
        if path.removeprefix("/proc/") not in PROC_OWN:
            assert verdict.startswith(("unreadable", "empty")), (path, verdict)
    if sandbox.proc_subset:  # and the process folders are all it lists
        assert lines_starting(log, "listed: ") == ["listed: ['self', 'thread-self']"], log


# -- resource limits --


def test_a_fork_bomb_stays_within_the_process_limit(tmp_path: Path) -> None:
    processes = 24
    bot = stage(tmp_path / "code", "fork_bomb.py")
    log = play_hostile(bot, bubblewrap(processes=processes), Status.OK)
    assert re.search(r"fork bomb: \d+ children, then BlockingIOError\(11, ", log), log
    counted = int(lines_starting(log, "processes of my uid: ")[0].split(": ")[1])
    assert 1 < counted <= processes, log
    # Its sleepers, in sessions of their own and deaf to SIGTERM, died with the match (fixture).
    assert "left 3 sleepers" in log


def test_a_memory_bomb_gets_status_memory(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", "memory_bomb.py")
    log = play_hostile(bot, bubblewrap(memory_mb=256), Status.MEMORY)
    # The cgroup's limit, not an address-space rlimit: the kernel kills the tree (no MemoryError).
    assert "went over its memory limit" in log


def test_a_memory_bomb_over_many_processes_is_capped_for_the_whole_tree(tmp_path: Path) -> None:
    # Each child fits in the tree's limit (memory_mb + tmpfs_mb); together they are far over it,
    # so the kernel kills children in the bot's memory cgroup.
    # The kernel reports each memory kill on the machine's console, which on a VM's serial console
    # takes some 3 s a kill: the bomb, before the bot connects, took 1.7-8.1 s on a quiet machine
    # and over the 10 s start-up clock on a busy one. The clock is not what this test is about.
    memory_mb = 256
    bot = stage(tmp_path / "code", "memory_bomb_forked.py", bytes_per_child=memory_mb * 1024 * 1024 // 2)
    limits = replace(CLOCKS, startup_ms=30_000)
    log = play_hostile(bot, bubblewrap(memory_mb=memory_mb, tmpfs_mb=16), Status.OK, limits)
    endings = lines_starting(log, "children: ")[0].removeprefix("children: ").split()
    assert "SIGKILL" in endings, log


def test_a_busy_loop_gets_status_cpu(tmp_path: Path) -> None:
    # A decision clock far longer than the CPU limit: the CPU limit must fire first.
    bot = stage(tmp_path / "code", "busy_loop.py")
    limits = Limits(decision_ms=10_000, bank_ms=0)
    log = play_hostile(bot, bubblewrap(cpu_seconds=1), Status.CPU, limits)
    assert "killed on its CPU time limit" in log


def test_a_busy_loop_that_ignores_sigxcpu_still_gets_status_cpu(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", "busy_loop_ignoring_sigxcpu.py")
    limits = Limits(decision_ms=10_000, bank_ms=0)
    log = play_hostile(bot, bubblewrap(cpu_seconds=1), Status.CPU, limits)
    assert "killed on its CPU time limit (it ignored SIGXCPU)" in log


def test_sleeping_forever_gets_status_timeout(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", "sleep_forever.py")
    log = play_hostile(bot, bubblewrap(), Status.TIMEOUT, Limits(decision_ms=200, bank_ms=0))
    assert "no answer within 200 ms" in log


def test_a_huge_file_stops_at_the_file_size_limit(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", "huge_file.py")
    log = play_hostile(bot, bubblewrap(file_size_mb=1, tmpfs_mb=16), Status.OK)
    assert f"stopped: EFBIG after {1024 * 1024} bytes" in log


def test_filling_tmp_stops_at_the_tmpfs_size(tmp_path: Path) -> None:
    tmpfs_mb = 4
    bot = stage(tmp_path / "code", "tmp_filler.py")
    log = play_hostile(bot, bubblewrap(tmpfs_mb=tmpfs_mb, file_size_mb=8), Status.OK)
    match = re.search(r"stopped: ENOSPC after (\d+) bytes", log)
    assert match is not None, log
    assert 0 < int(match.group(1)) <= tmpfs_mb * 1024 * 1024
    # Nothing else in its view is writable; and its /tmp was its own.
    assert lines_starting(log, "wrote") == []
    assert len(lines_starting(log, "blocked: ")) == 9, log
    assert not Path("/tmp/filler-0").exists()


def test_the_supervisor_kills_a_bot_that_outlived_its_sandbox(tmp_path: Path) -> None:
    # It sleeps on, deaf to SIGTERM, holding its stderr open, with no namespace to take it
    # down: the supervisor kills it by its uid at match end, and the match does not hang on it.
    bot = stage(tmp_path / "code", "sleep_forever.py")
    sandbox = bubblewrap(WithoutPidNamespace)
    log = play_hostile(bot, sandbox, Status.TIMEOUT, Limits(decision_ms=200, bank_ms=0))
    assert "no answer within 200 ms" in log


# -- other processes and code --


def test_other_processes_can_be_neither_signalled_nor_traced(tmp_path: Path) -> None:
    victim = subprocess.Popen(["sleep", "60"])
    try:
        arena_pid = os.getpid()
        bot = stage(tmp_path / "code", "signaller.py", arena_pid=arena_pid, victim_pid=victim.pid)
        log = play_hostile(bot, bubblewrap(), Status.OK)
        assert victim.poll() is None, "the victim must survive"
    finally:
        victim.kill()
        victim.wait()
    # kill(-1) reports success once anything else is in its view, even where every signal was
    # refused; the match played on (checked above), so nothing it needed was killed.
    assert lines_starting(log, "done") == ["done: kill -1 SIGKILL: None"], log
    # Its sandbox's init and the holder that keeps the sandbox are root's: not to be signalled;
    # ptrace is refused by the seccomp filter.
    for pid in (1, 2):
        for attempt in ("SIGKILL", "SIGSTOP"):
            assert f"blocked: kill {pid} {attempt}: EPERM" in log
        for attempt in ("attach", "seize"):
            assert f"blocked: ptrace {attempt} {pid}: EPERM" in log
        assert f"blocked: read /proc/{pid}/mem: EACCES" in log
    # The arena and the victim are not even in its view (and ptrace is refused anyway).
    for pid in (arena_pid, victim.pid):
        assert f"blocked: kill {pid} SIGKILL: ESRCH" in log
        assert f"blocked: kill {pid} SIGSTOP: ESRCH" in log
        assert f"blocked: ptrace attach {pid}: EPERM" in log
        assert f"blocked: read /proc/{pid}/mem: ENOENT" in log


def test_its_own_code_and_the_shared_runtime_cannot_be_changed(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", "code_writer.py")
    original = bot.read_bytes()
    shared = [Path(arena.__file__), Path(sdk.__file__)]
    before = [hashlib.sha256(path.read_bytes()).hexdigest() for path in shared]
    site = Path(sysconfig.get_paths()["purelib"]) / "sitecustomize.py"
    planted = site.exists()
    log = play_hostile(bot, bubblewrap(), Status.OK)
    assert lines_starting(log, "done") == [], log
    assert len(lines_starting(log, "blocked: ")) == 9, log
    assert bot.read_bytes() == original
    assert sorted(path.name for path in bot.parent.iterdir()) == ["code_writer.py"]
    assert [hashlib.sha256(path.read_bytes()).hexdigest() for path in shared] == before
    assert site.exists() == planted


# -- well-behaved bots and other matches --


def test_a_well_behaved_bot_plays_identically_with_and_without_the_sandbox() -> None:
    specs = [str(STARTER), "builtin:heuristic"]
    plain = play(specs, NoSandbox(), games=3)
    boxed = play(specs, bubblewrap(), games=3)
    for record in (plain, boxed):
        assert len(record.games) == 3
        assert all(status is Status.OK for game in record.games for status in game.statuses)
    assert [game.actions for game in boxed.games] == [game.actions for game in plain.games]
    assert [game.result for game in boxed.games] == [game.result for game in plain.games]
    assert boxed.logs == plain.logs


def test_hostile_matches_leave_a_concurrent_match_alone(tmp_path: Path) -> None:
    specs = [str(STARTER), "builtin:heuristic"]
    expected = play(specs, NoSandbox())
    bombs = [
        stage(tmp_path / "fork", "fork_bomb.py"),
        stage(tmp_path / "memory", "memory_bomb.py"),
        stage(tmp_path / "busy", "busy_loop.py"),
    ]

    calm_box = bubblewrap()
    tight = bubblewrap(processes=24, memory_mb=256, cpu_seconds=1)

    def match(specs: list[str], sandbox: Sandbox, limits: Limits) -> Coroutine[Any, Any, MatchRecord]:
        return play_match(
            Edible(),
            EdibleConfig(),
            specs,
            sandbox,
            games=GAMES,
            seed=SEED,
            limits=limits,
            bot_seeds=BOT_SEEDS,
        )

    async def together() -> list[MatchRecord]:
        hostile = [match([str(bomb), "builtin:random"], tight, Limits(decision_ms=5000)) for bomb in bombs]
        return list(await asyncio.gather(match(specs, calm_box, CLOCKS), *hostile))

    calm, *hostile = run_bounded(together)
    assert [game.actions for game in calm.games] == [game.actions for game in expected.games]
    assert all(status is Status.OK for game in calm.games for status in game.statuses)
    statuses = [[game.statuses[game.seating.index(0)] for game in record.games] for record in hostile]
    assert statuses == [[Status.OK] * GAMES, [Status.MEMORY] * GAMES, [Status.CPU] * GAMES]
