"""Hostile bots under the real bubblewrap sandbox, one per attack.

Each test plays a short match, the hostile bot against ``builtin:random``, and checks that the
match finishes every game, that the other seat stays ``ok``, that the hostile seat gets the
status its attack earns, that the attack had no effect outside the sandbox, and that no process
holding a bot uid the match used outlives it. Nothing here is mocked, and nothing is skipped: a
machine where bubblewrap cannot run fails these tests (they need root, bwrap, setpriv, prlimit
and, for the tree-wide limits, writable cgroup v1 memory and pids controllers).

A bot that needs parameters (a port, a path) reads them from ``target.json`` beside it: the
test copies the bot into a folder of its own and writes that file there, and the sandbox
copies the whole folder to ``/bot``.
"""

from __future__ import annotations

import asyncio
import fcntl
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
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

import arena
import sdk
from arena.games.edible import Edible, EdibleConfig
from arena.runner.match import Limits, MatchRecord, Status
from arena.sandbox import NoSandbox, Sandbox, SandboxError, SandboxLimits
from arena.sandbox.base import BotProgram, Launch
from arena.sandbox.bubblewrap import SLOT_LOCKS, BubblewrapSandbox
from arena.transport.process import play_match

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = ROOT / "tests" / "bots" / "hostile"
STARTER = ROOT / "sdk" / "examples" / "edible_starter.py"
GAMES = 2
SEED = 11
CLOCKS = Limits(decision_ms=1000, bank_ms=1000)
HANG_S = 60
T = TypeVar("T")


class Bubblewrap(BubblewrapSandbox):
    """The real backend, noting the uids it runs bots under and, the moment it has released
    one (the supervisor's word that the bot's whole tree is gone), any process still holding it.

    Only this test's uids are checked: other matches may run sandboxed bots on this machine at
    the same time. While the check runs it holds the uid's slot lock, so that no other match
    can be using that uid.
    """

    def __init__(self, limits: SandboxLimits) -> None:
        super().__init__(limits)
        self.uids: set[int] = set()
        self.leftovers: list[str] = []

    def launch(self, program: BotProgram, socket: Path, token: str, slot: int) -> Launch:
        launch = super().launch(program, socket, token, slot)
        self.uids.add(self.uid_of(slot))
        return launch

    def release(self, slot: int) -> None:
        try:
            uid: int | None = self.uid_of(slot)
        except KeyError:
            uid = None
        super().release(slot)
        if uid is not None:
            self.leftovers += processes_holding({uid}, locked=True)


SANDBOXES: list[Bubblewrap] = []


class WithoutPidNamespace(Bubblewrap):
    """The real backend minus its pid namespace: its bots stand for processes that got out of
    their sandbox's namespace, which would otherwise kill them all when its init dies (their
    parent-death signal does not outlive setpriv's change of uid)."""

    def launch(self, program: BotProgram, socket: Path, token: str, slot: int) -> Launch:
        launch = super().launch(program, socket, token, slot)
        launch.argv.remove("--unshare-pid")
        return launch


def bubblewrap(backend: type[Bubblewrap] = Bubblewrap, **limits: Any) -> Bubblewrap:
    """The real backend; a machine that cannot run it fails the test (never skips it)."""
    try:
        sandbox = backend(SandboxLimits(**limits))
    except SandboxError as error:
        pytest.fail(f"these tests need the bubblewrap sandbox, and it cannot run here: {error}")
    SANDBOXES.append(sandbox)
    return sandbox


def processes_holding(uids: set[int], locked: bool = False) -> list[str]:
    """Every process (zombies included) with one of ``uids`` as real, effective, saved or file
    system uid, as ``pid name state``. With ``locked``, the uids' slot locks are held meanwhile
    (a uid another match has claimed since is left out)."""
    held = []
    try:
        if locked:
            for uid in sorted(uids):
                handle = open(SLOT_LOCKS / f"{uid}.lock", "w")  # noqa: SIM115 (closed below)
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    held.append(handle)
                except BlockingIOError:
                    handle.close()
            uids = {int(Path(handle.name).stem) for handle in held}
        found = []
        for status in Path("/proc").glob("[0-9]*/status"):
            try:
                fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
            except (OSError, ValueError):
                continue
            if uids & {int(uid) for uid in fields["Uid"].split()}:
                found.append(f"{status.parent.name} {fields['Name'].strip()} {fields['State'].strip()}")
        return found
    finally:
        for handle in held:
            handle.close()


@pytest.fixture(autouse=True)
def no_bot_process_outlives_a_match() -> Iterator[None]:
    SANDBOXES.clear()
    yield
    uids = {uid for sandbox in SANDBOXES for uid in sandbox.uids}
    assert uids, "the test ran no bot in bubblewrap"
    assert [sandbox.leftovers for sandbox in SANDBOXES if sandbox.leftovers] == []
    assert processes_holding(uids, locked=True) == [], "a bot process outlived its match"


def stage(folder: Path, bot: str, **target: Any) -> Path:
    """Copy the hostile ``bot`` into ``folder`` (its code folder), with ``target.json`` if asked."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / bot
    shutil.copy(HOSTILE / bot, path)
    if target:
        (folder / "target.json").write_text(json.dumps(target))
    return path


def run_bounded(main: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """``asyncio.run(main())`` in a thread of its own, failing the test if it hangs (a match
    that never ends would otherwise hang the whole run rather than fail)."""
    outcome: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(asyncio.run(main()))
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG_S)
    if thread.is_alive():
        pytest.fail(f"the match did not end within {HANG_S} s")
    if errors:
        raise errors[0]
    return outcome[0]


def play(
    specs: list[str], sandbox: Sandbox, limits: Limits = CLOCKS, games: int = GAMES, seed: int = SEED
) -> MatchRecord:
    return run_bounded(
        lambda: play_match(Edible(), EdibleConfig(), specs, sandbox, games=games, seed=seed, limits=limits)
    )


def play_hostile(bot: Path, sandbox: Bubblewrap, status: Status, limits: Limits = CLOCKS) -> str:
    """Play ``bot`` against ``builtin:random`` and check the match: every game played, the other
    seat ``ok`` throughout, ``status`` for the bot in every game, and no bot process left right
    after. Returns the bot's log."""
    record = play([str(bot), "builtin:random"], sandbox, limits)
    assert sandbox.leftovers == [], "the supervisor must kill a bot's whole tree at match end"
    log = record.logs[0]
    assert len(record.games) == GAMES, log
    for game in record.games:
        assert game.result is not None
        assert game.statuses[game.seating.index(1)] is Status.OK, log
        assert game.statuses[game.seating.index(0)] is status, (game.faults, log)
    return log


def lines_starting(log: str, prefix: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith(prefix)]


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
    # Its own pid namespace: its sandbox's init and itself, nothing of the host.
    visible = json.loads(lines_starting(log, "visible processes: ")[0].removeprefix("visible processes: "))
    assert visible == [1, 2], log
    assert f"blocked: /proc/{arena_pid}/environ: FileNotFoundError" in log
    # The sandbox's init is root's, and bubblewrap is started with an empty environment anyway.
    assert "blocked: /proc/1/environ: PermissionError" in log or "read /proc/1/environ: b''" in log


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
    assert "MemoryError" in log


def test_a_memory_bomb_over_many_processes_is_capped_for_the_whole_tree(tmp_path: Path) -> None:
    # Each child fits in its address space limit; together they are far over the tree's limit
    # (memory_mb + tmpfs_mb), so the kernel kills children in the bot's memory cgroup.
    memory_mb = 256
    bot = stage(tmp_path / "code", "memory_bomb_forked.py", bytes_per_child=memory_mb * 1024 * 1024 // 2)
    log = play_hostile(bot, bubblewrap(memory_mb=memory_mb, tmpfs_mb=16), Status.OK)
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
    assert lines_starting(log, "done") == [], log
    # Its sandbox's init is root's: not to be signalled; ptrace is refused by the seccomp filter.
    for attempt in ("kill 1 SIGKILL", "kill 1 SIGSTOP", "ptrace attach 1", "ptrace seize 1"):
        assert f"blocked: {attempt}: EPERM" in log
    assert "blocked: read /proc/1/mem: EACCES" in log
    # The arena and the victim are not even in its view (and ptrace is refused anyway).
    for pid in (arena_pid, victim.pid):
        assert f"blocked: kill {pid} SIGKILL: ESRCH" in log
        assert f"blocked: kill {pid} SIGSTOP: ESRCH" in log
        assert f"blocked: ptrace attach {pid}: EPERM" in log
        assert f"blocked: read /proc/{pid}/mem: ENOENT" in log
    # Nor is anything else to kill in its view.
    assert "blocked: kill -1 SIGKILL: ESRCH" in log


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
        return play_match(Edible(), EdibleConfig(), specs, sandbox, games=GAMES, seed=SEED, limits=limits)

    async def together() -> list[MatchRecord]:
        hostile = [match([str(bomb), "builtin:random"], tight, Limits(decision_ms=5000)) for bomb in bombs]
        return list(await asyncio.gather(match(specs, calm_box, CLOCKS), *hostile))

    calm, *hostile = run_bounded(together)
    assert [game.actions for game in calm.games] == [game.actions for game in expected.games]
    assert all(status is Status.OK for game in calm.games for status in game.statuses)
    statuses = [[game.statuses[game.seating.index(0)] for game in record.games] for record in hostile]
    assert statuses == [[Status.OK] * GAMES, [Status.MEMORY] * GAMES, [Status.CPU] * GAMES]
