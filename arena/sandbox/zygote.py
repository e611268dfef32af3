"""The zygote: Python bots forked from an interpreter that imported the SDK once, into their sandboxes.

A Python bot's imports cost about 100 ms of CPU, so the bubblewrap backend starts one trusted fork
server per arena process: ``python zygote.py CONTROL REQUESTS PACKAGES`` on the Python bot runtime's
interpreter, as root in the host's namespaces, with an empty environment; it imports what a bot
imports and then only forks. Its **template**, forked before any request is read, forks a child per
request on REQUESTS; that child forks the **relay**, which joins the slot's sandbox and forks the
**bot**, which takes the slot's uid and limits and becomes the launcher (``arena.launch.run_job``).
The zygote reaps relays when the arena asks on CONTROL. Each fork serves one bot of one match; bots
share only the template's memory, address layout and per-process secrets (``deploy/SANDBOX.md``).

How, step by step, and why: docs/sandbox.md.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

MAX_REQUEST = 65536
MAX_FDS = 16
ENDED_S = 10.0
"""How long the arena waits for the process that forked a relay to end (it ends at once)."""
FIXED_FDS = ("job", "status", "stderr", "exit", "root")
"""The descriptors of a request, in order; the namespaces' follow."""
NAMESPACES = ("cgroup", "ipc", "uts", "net", "pid", "mnt")
"""Joined in this order: the mount namespace last, as it takes away the host's /proc."""

# prctl(2), seccomp(2) and mount(2) constants.
PR_SET_PDEATHSIG = 1
PR_SET_DUMPABLE = 4
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
PR_SET_SECCOMP = 22
PR_SET_CHILD_SUBREAPER = 36
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
        """Where the arena asks for relays to be reaped; its end tells the zygote the arena is gone."""
        self._requests: socket.socket | None = None
        """Where the fork requests go, read only by the processes the template forks for them."""
        self._process: subprocess.Popen[bytes] | None = None
        self._owner = 0
        self._forkers: dict[int, int] = {}
        """A pidfd, by relay, of the process that forked it, until the relay is reaped."""

    def fork(self, request: dict[str, Any], fds: list[int]) -> int:
        """Fork a relay and its bot for ``request`` with ``fds`` (``FIXED_FDS`` then the
        namespaces); the relay's pid."""
        with self._lock:
            requests = self._running()
            forker: list[int] = []  # a pidfd of the process that forked the relay
            try:
                socket.send_fds(requests, [json.dumps(request).encode()], fds)
                data, forker, _, _ = socket.recv_fds(requests, MAX_REQUEST, 1)
                reply = json.loads(data or b"null")
            except (OSError, ValueError) as error:
                reply = None
                cause = str(error)
            else:
                cause = "it exited"
            if not isinstance(reply, dict) or "pid" not in reply or len(forker) != 1:
                for descriptor in forker:
                    os.close(descriptor)
                self._stop()
                raise ZygoteError(f"the bot fork server failed: {cause}")
            pid = int(reply["pid"])
            self._forkers[pid] = forker[0]
            return pid

    def reap(self, pid: int) -> None:
        """Let the zygote reap the relay ``pid``: the arena is done with it."""
        with self._lock:
            forker = self._forkers.pop(pid, None)
            if self._control is None or self._owner != os.getpid() or forker is None:
                return  # that zygote is gone, and its children were reaped with it
            try:
                # The relay's parent has ended, so the relay is the zygote's child: its pidfd
                # turns readable after that (it ended when it had sent the relay's pid).
                poller = select.poll()  # not select(), which takes no descriptor past 1023
                poller.register(forker, select.POLLIN)
                ended = poller.poll(ENDED_S * 1000)
            finally:
                os.close(forker)
            if not ended:
                self._stop()  # a zygote gone wrong: the next bot starts a new one
                return
            try:
                self._control.send(json.dumps({"reap": pid}).encode())
                self._control.recv(MAX_REQUEST)
            except OSError:
                self._stop()

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _running(self) -> socket.socket:
        """The requests socket of this process's running zygote, started if need be."""
        if self._owner != os.getpid():  # a forked copy of the arena: that zygote is its parent's
            for ours in (self._control, self._requests):
                if ours is not None:
                    ours.close()
            for forker in self._forkers.values():
                os.close(forker)
            self._control, self._requests, self._process, self._forkers = None, None, None, {}
        if self._requests is not None and self._process is not None and self._process.poll() is None:
            return self._requests
        self._stop()
        control, control_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        requests, requests_theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        theirs = (control_theirs.fileno(), requests_theirs.fileno())
        from arena.manifest import python_runtime  # the arena's side only: the zygote has no arena yet

        runtime = python_runtime()
        # -I -S: nothing of the environment, the current folder or site's .pth files (15 ms).
        argv = [str(runtime.interpreter), "-I", "-S", "-u", "-B", __file__, *(str(fd) for fd in theirs)]
        try:
            self._process = subprocess.Popen(
                [*argv, str(runtime.site_packages)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env={},
                pass_fds=theirs,
                start_new_session=True,
            )
        except OSError as error:
            control.close()
            requests.close()
            raise ZygoteError(f"cannot start the bot fork server: {error}") from error
        finally:
            control_theirs.close()
            requests_theirs.close()
        self._control, self._requests, self._owner = control, requests, os.getpid()
        return requests

    def _stop(self) -> None:
        if self._owner == os.getpid():
            for ours in (self._control, self._requests):
                if ours is not None:
                    ours.close()  # the zygote and its template read the end of their sockets and exit
            if self._control is not None and self._process is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._process.wait(5)
            for forker in self._forkers.values():
                os.close(forker)
        self._control, self._requests, self._process, self._forkers = None, None, None, {}


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

    from arena.launch import run_job

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

    # numpy, forked ready (one BLAS thread: a fork keeps none of its parent's threads, and a bot
    # has one CPU), so that a bot importing it finds it loaded; a bot that does not shares its pages
    # and never writes them. Not onnxruntime: its import starts a thread, and a process forked after
    # it hangs at its exit (every one of them here), so a bot imports it itself.
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    import numpy  # noqa: F401

    import sdk.client  # noqa: F401  (grpc, protobuf)
    from arena.bots import builtin_class
    from arena.games.registry import all_games
    from arena.wire.codec import codec_for

    for game in all_games():
        codec_for(game.name)  # what a bot's MatchStart loads: 0.9-1.3 ms a bot, forked after
        for name in game.builtin_bots:  # ``python -m sdk builtin:NAME`` imports its bot's module
            builtin_class(game.name, name)
    gc.freeze()  # and the bots' own collections never walk them again
    gc.enable()


def _reap_orphans() -> None:
    """Reap the children that are bots: a bot whose relay died before it comes to the zygote (its
    subreaper), and would otherwise hold its slot's uid as a zombie for good. A bot is told from a
    relay by its pid namespace, the sandbox's, one level below the zygote's."""
    levels = len(_nspids("self"))
    try:
        children = Path(f"/proc/self/task/{os.getpid()}/children").read_text().split()
    except OSError:  # a kernel without CONFIG_PROC_CHILDREN: they go on as zombies
        return
    for child in children:
        if len(_nspids(child)) > levels:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(int(child), os.WNOHANG)


def _nspids(pid: str) -> list[str]:
    """The pids of process ``pid`` in each pid namespace it is in, from the outermost in view."""
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("NSpid:"):
                return line.split()[1:]
    return []


def _serve(control: socket.socket, template: int) -> None:
    """The zygote's loop: reap the relays the arena is done with, until the arena or the
    template is gone."""
    relays: set[int] = set()
    """Relays the arena is done with that were still running when it said so."""
    woken, wake = os.pipe()
    for end in (woken, wake):
        os.set_blocking(end, False)
    signal.set_wakeup_fd(wake)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)  # a child's end wakes the poll
    watch = os.pidfd_open(template)
    poller = select.poll()
    for descriptor in (control.fileno(), watch, woken):
        poller.register(descriptor, select.POLLIN)
    while True:
        ready = {descriptor for descriptor, _ in poller.poll()}
        if watch in ready:
            return  # the template died: the arena starts a new zygote for its next bot
        if woken in ready:
            with contextlib.suppress(BlockingIOError):
                while os.read(woken, 256):
                    pass
            _reap_orphans()
        if control.fileno() not in ready:
            continue
        try:
            data = control.recv(MAX_REQUEST)
        except OSError:
            return
        if not data:
            return  # the arena is gone
        relays.add(int(json.loads(data)["reap"]))
        for pid in list(relays):
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            relays.discard(pid)
        try:
            control.send(b"{}")
        except OSError:
            return  # the arena went while it waited (interrupted, say): nothing to say to anyone


def _template(requests: socket.socket, last_cap: int) -> bool:
    """The template's loop: fork a process that waits for the next request on ``requests`` and
    reads it, and when that one has ended the next; until the arena is gone. ``True`` in a bot,
    which returns from here to run."""
    while True:
        if os.fork() == 0:
            return _receive(requests, last_cap)
        # Its pid is neither kept nor sent anywhere; this waits for whichever child ends.
        if os.waitstatus_to_exitcode(os.wait()[1]) != 0:
            return False  # it found no request: the arena is gone


def _receive(requests: socket.socket, last_cap: int) -> bool:
    """In a fork of the template: wait for one request and read it, fork its relay, tell the
    arena the relay's pid and end, leaving the relay to the zygote (its subreaper). ``True`` in
    the relay's bot."""
    try:
        data, fds, _, _ = socket.recv_fds(requests, MAX_REQUEST, MAX_FDS)
    except OSError:
        os._exit(1)
    if not data:
        os._exit(1)
    request = json.loads(data)
    relay = os.fork()
    if relay == 0:
        requests.close()
        _relay(request, fds, last_cap)
        return True  # the bot's code has run: it ends as an interpreter does
    with contextlib.suppress(OSError):  # the arena went meanwhile
        socket.send_fds(requests, [json.dumps({"pid": relay}).encode()], [os.pidfd_open(os.getpid())])
    os._exit(0)


def main() -> None:
    control = socket.socket(fileno=int(sys.argv[1]))
    requests = socket.socket(fileno=int(sys.argv[2]))
    _prepare_imports(sys.argv[3])
    last_cap = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    # The relays' parents end at once: the relays come here, to be reaped when the arena says.
    _libc_call("prctl", PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    zygote = os.getpid()
    template = os.fork()  # before any request is read: what every bot is forked from
    if template == 0:
        control.close()
        _libc_call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # it ends with the zygote
        if os.getppid() != zygote:
            os._exit(0)  # which ended before that held
        _template(requests, last_cap)
        return  # in a bot, whose code has run; or the template, its arena gone
    requests.close()
    _serve(control, template)


if __name__ == "__main__":
    main()
