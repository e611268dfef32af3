"""The zygote: Python bots forked from an interpreter that imported the SDK once, into their sandboxes.

A Python bot's start costs about 100 ms of CPU in imports (grpc, protobuf, the SDK and the
engines), and duplicate deals start fresh processes for every leg of a match. So the bubblewrap
backend starts one trusted fork server per arena process: ``python zygote.py CONTROL PACKAGES``,
as root in the host's namespaces, with an empty environment. It imports what a bot imports and
then only forks, one child per request. It never holds anything of a match: a request carries a
slot's pipes, its namespaces and its limits, never a token or a card (the job with the arena's
address and token is written later, into the bot's own job pipe).

Each request (a datagram on the control socket, with file descriptors) makes two processes:

* the **relay**, the zygote's child: it joins the slot's cgroups and then the namespaces and the
  root of the slot's bubblewrap sandbox (a *holder* process keeps them alive), forks the bot, and
  when the bot ends writes its exit code to the slot's exit pipe. The arena watches the relay
  (a pidfd) and reads that pipe; the zygote reaps the relay only when the arena asks, after the
  slot is released, so its pid is never reused while the arena may still signal it.
* the **bot**, the relay's child, in the sandbox's pid namespace: a session of its own,
  ``/dev/null`` for stdin and stdout, the slot's stderr pipe, only its job and status pipes
  open, the sandbox's ``/proc`` (its process folders alone, where the request asks the bot to
  mount one), the bot's environment, rlimits, no capabilities (even in the bounding set), the
  slot's uid (dumpable again, as after an ``exec``), no new privileges and the seccomp filter,
  in this order. Its random module is seeded afresh. Then it is the launcher
  (``arena.sandbox.launch.run_job``): it waits for its job, writes its record and runs the bot.
  Its starting environment (``/proc/self/environ``) is the zygote's, which is empty.

Each fork serves exactly one bot of one match and ends with it; nothing of one bot reaches
another, as each starts from the zygote's untouched memory.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import signal
import socket
import subprocess
import sys
import sysconfig
import threading
from pathlib import Path
from typing import IO, Any

MAX_REQUEST = 65536
MAX_FDS = 16
FIXED_FDS = ("job", "status", "stderr", "exit", "root")
"""The descriptors of a request, in order; the namespaces' follow."""
NAMESPACES = ("cgroup", "ipc", "uts", "net", "pid", "mnt")
"""Joined in this order: the mount namespace last, as it takes away the host's /proc."""

# prctl(2), seccomp(2) and mount(2) constants.
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
MS_NOSUID, MS_NODEV, MS_NOEXEC = 2, 4, 8


class ZygoteError(Exception):
    """The fork server could not start or answer."""


# -- the arena's side --


class ForkedProcess:
    """A bot forked by the zygote, as the arena sees it: ``pid`` is its relay's (a zombie until
    ``Zygote.reap``), and the exit code arrives on a pipe. Duck-types what the arena uses of
    ``subprocess.Popen``."""

    def __init__(self, pid: int, exit_pipe: int, stderr: IO[bytes]) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self.stderr: IO[bytes] | None = stderr
        self._exit = exit_pipe

    def poll(self) -> int | None:
        if self.returncode is None:
            os.set_blocking(self._exit, False)
            try:
                data = os.read(self._exit, 32)
            except BlockingIOError:
                return None
            self._settle(data)
        return self.returncode

    def wait(self) -> int:
        if self.returncode is None:
            os.set_blocking(self._exit, True)
            self._settle(os.read(self._exit, 32))
        assert self.returncode is not None
        return self.returncode

    def _settle(self, data: bytes) -> None:
        # Nothing written: the relay itself was killed (the slot released, say), and the bot with it.
        self.returncode = int(data) if data.strip() else -signal.SIGKILL
        os.close(self._exit)


class Zygote:
    """This process's fork server, started on first use (and again in a forked child process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._control: socket.socket | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._owner = 0

    def fork(self, request: dict[str, Any], fds: list[int]) -> int:
        """Fork a relay and its bot for ``request`` with ``fds`` (``FIXED_FDS`` then the
        namespaces); the relay's pid."""
        with self._lock:
            control = self._running()
            try:
                socket.send_fds(control, [json.dumps(request).encode()], fds)
                reply = json.loads(control.recv(MAX_REQUEST) or b"null")
            except (OSError, ValueError) as error:
                reply = None
                cause = str(error)
            else:
                cause = "it exited"
            if not isinstance(reply, dict) or "pid" not in reply:
                self._stop()
                raise ZygoteError(f"the bot fork server failed: {cause}")
            return int(reply["pid"])

    def reap(self, pid: int) -> None:
        """Let the zygote reap the relay ``pid``: the arena is done with it."""
        with self._lock:
            if self._control is None or self._owner != os.getpid():
                return  # that zygote is gone, and its children were reaped with it
            try:
                self._control.send(json.dumps({"reap": pid}).encode())
                self._control.recv(MAX_REQUEST)
            except OSError:
                self._stop()

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _running(self) -> socket.socket:
        if self._owner != os.getpid():  # a forked copy of the arena: that zygote is its parent's
            if self._control is not None:
                self._control.close()
            self._control, self._process = None, None
        if self._control is not None and self._process is not None and self._process.poll() is None:
            return self._control
        self._stop()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        packages = dict.fromkeys(sysconfig.get_paths()[name] for name in ("purelib", "platlib"))
        # -I -S: nothing of the environment, the current folder or site's .pth files (15 ms).
        argv = [sys.executable, "-I", "-S", "-u", "-B", __file__, str(theirs.fileno())]
        try:
            self._process = subprocess.Popen(
                [*argv, os.pathsep.join(packages)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env={},
                pass_fds=(theirs.fileno(),),
                start_new_session=True,
            )
        except OSError as error:
            ours.close()
            raise ZygoteError(f"cannot start the bot fork server: {error}") from error
        finally:
            theirs.close()
        self._control, self._owner = ours, os.getpid()
        return ours

    def _stop(self) -> None:
        if self._control is not None and self._owner == os.getpid():
            self._control.close()  # the zygote reads the end of its socket and exits
            if self._process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._process.wait(5)
        self._control, self._process = None, None


# -- the fork server's side --


def _libc_call(name: str, *arguments: int | bytes | ctypes.c_void_p) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    function = getattr(libc, name)
    values = [
        argument
        if isinstance(argument, ctypes.c_void_p)
        else ctypes.c_char_p(argument)
        if isinstance(argument, bytes)
        else ctypes.c_ulong(argument)
        for argument in arguments
    ]
    if function(*values) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{name}: {os.strerror(error)}")


def _load_seccomp(program: bytes) -> None:
    """Install ``program`` (an array of BPF instructions, 8 bytes each) as this process's filter."""

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    instructions = ctypes.create_string_buffer(program, len(program))
    fprog = SockFprog(len(program) // 8, ctypes.addressof(instructions))
    _libc_call("prctl", PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.c_void_p(ctypes.addressof(fprog)), 0, 0)


def _close_all_but(keep: set[int]) -> None:
    low = 0
    for descriptor in sorted(keep):
        if low < descriptor:  # os.closerange(n, n) would close every descriptor from n
            os.closerange(low, descriptor)
        low = descriptor + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX"))


def _become_bot(request: dict[str, Any], job: int, status: int, stderr: int, last_cap: int) -> None:
    """In the bot's process: drop everything a bot may not have, then be its launcher."""
    import random
    import resource

    os.setsid()
    null = os.open("/dev/null", os.O_RDWR)
    for target, source in ((0, null), (1, null), (2, stderr)):
        os.dup2(source, target)
    _close_all_but({0, 1, 2, job, status})
    if request["proc_subset"]:  # from inside the sandbox's pid namespace: its processes alone
        _libc_call("mount", b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, b"subset=pid")
    os.chdir("/tmp")
    os.environ.clear()
    os.environ.update(request["env"])
    for limit, soft, hard in request["rlimits"]:
        resource.setrlimit(limit, (soft, hard))
    for capability in range(last_cap + 1):
        _libc_call("prctl", PR_CAPBSET_DROP, capability, 0, 0, 0)
    uid = request["uid"]
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # from root to another uid: every capability goes
    # The change of uid made it undumpable, its /proc files root's: an exec would have undone that.
    _libc_call("prctl", PR_SET_DUMPABLE, 1, 0, 0, 0)
    _libc_call("prctl", PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    _load_seccomp(bytes.fromhex(request["seccomp"]))
    random.seed()  # not the zygote's state, which every fork shares

    from arena.sandbox.launch import run_job

    run_job(job, status)


def _relay(request: dict[str, Any], fds: list[int], last_cap: int) -> None:
    """In the relay: enter the slot, fork the bot, report its end. The bot returns from here
    (to finish as an interpreter does); the relay never does."""
    job, status, stderr, exit_pipe, root, *namespaces = fds
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    try:
        # Opened now, from the host's mount namespace: the way back out of the slot's cgroups.
        home = []
        for procs in request["home"]:
            with contextlib.suppress(OSError):  # out of sight: the relay stays, spared by the arena
                home.append(os.open(procs, os.O_WRONLY))
        for procs in request["cgroups"]:
            Path(procs).write_text(str(os.getpid()))
        for namespace in namespaces:
            _libc_call("setns", namespace, 0)
        os.fchdir(root)
        os.chroot(".")
        for descriptor in (root, *namespaces):
            os.close(descriptor)
        bot = os.fork()
    except OSError as error:  # its sandbox is gone (the arena let go of it), or never was
        with contextlib.suppress(OSError):
            os.write(stderr, f"arena: cannot enter the bot's sandbox: {error}\n".encode())
        os._exit(127)
    if bot == 0:
        os.close(exit_pipe)
        _become_bot(request, job, status, stderr, last_cap)
        return
    for descriptor in (job, status, stderr):
        os.close(descriptor)
    # The relay must outlive its bot: an orphaned bot would go to the host's init (the relay is
    # outside the bot's pid namespace), which may be slow to reap it, and the slot waits until no
    # process holds its uid. So it leaves the slot's cgroups, where a memory kill might choose it
    # and the arena kills every process (but the relay, for the moment until it is out).
    for procs in home:
        with contextlib.suppress(OSError):
            os.write(procs, str(os.getpid()).encode())
        os.close(procs)
    _, wait_status = os.waitpid(bot, 0)
    with contextlib.suppress(OSError):  # the arena may have let the slot go already
        os.write(exit_pipe, str(os.waitstatus_to_exitcode(wait_status)).encode())
    os._exit(0)


def _prepare_imports(packages: str) -> None:
    import gc

    sys.path[:0] = [str(Path(__file__).resolve().parents[2]), *packages.split(os.pathsep)]
    gc.disable()  # imports make objects by the thousand, and none of them is garbage
    import argparse  # noqa: F401  (what a bot's run parses its arguments with)
    import resource  # noqa: F401  (what a bot's limits are set with)
    import runpy  # noqa: F401  (what the launcher runs a bot's code with)

    import sdk.client  # noqa: F401  (grpc, protobuf)
    from arena.bots import BUILTIN
    from arena.games.registry import all_games
    from arena.wire.codec import CODEC_CLASSES, codec_for

    all_games()
    for game in CODEC_CLASSES:  # what a bot's MatchStart loads: 0.9-1.3 ms a bot, forked after
        codec_for(game)
    for bots in BUILTIN.values():  # ``python -m sdk builtin:NAME`` imports its bot's module
        for target in bots.values():
            importlib.import_module(target.partition(":")[0])
    gc.freeze()  # and the bots' own collections never walk them again
    gc.enable()


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    _prepare_imports(sys.argv[2])
    last_cap = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    relays: set[int] = set()
    """Relays the arena is done with that were still running when it said so."""
    while True:
        try:
            data, fds, _, _ = socket.recv_fds(control, MAX_REQUEST, MAX_FDS)
        except OSError:
            return
        if not data:
            return  # the arena is gone
        request = json.loads(data)
        if "reap" in request:
            relays.add(int(request["reap"]))
            for pid in list(relays):
                with contextlib.suppress(ChildProcessError):
                    if os.waitpid(pid, os.WNOHANG)[0] == 0:
                        continue
                relays.discard(pid)
            reply = b"{}"
        else:
            pid = os.fork()
            if pid == 0:
                control.close()
                _relay(request, fds, last_cap)
                return  # the bot's code has run: it ends as an interpreter does
            for descriptor in fds:
                os.close(descriptor)
            reply = json.dumps({"pid": pid}).encode()
        try:
            control.send(reply)
        except OSError:
            return  # the arena went while it waited (interrupted, say): nothing to say to anyone


if __name__ == "__main__":
    main()
