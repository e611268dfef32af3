"""The ``bubblewrap`` backend: each bot in its own namespaces, as its own uid, under limits.

A sandboxed bot gets the Python bot runtime and, of the arena's source, the SDK and what it imports
(``BOT_SOURCES``), all read-only; its own code read-only at ``/bot``, a small private tmpfs at
``/tmp``, and the arena's unix socket at ``/arena/arena.sock``. Nothing else: no network, no other
process in sight, an empty environment, a non-root uid per bot slot, no new privileges, the seccomp
filter (``arena.sandbox.seccomp``), rlimits and cgroup limits (``arena.sandbox.cgroups``).
bubblewrap runs only a *holder* that keeps the namespaces alive; the zygote
(``arena.sandbox.zygote``) forks the bot into them.

What is shut out, and why: docs/sandbox.md.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Hashable
from pathlib import Path
from typing import IO

from arena.manifest import SOURCE_ROOT, PythonRuntime, python_runtime
from arena.sandbox import cpus
from arena.sandbox.base import (
    BotProgram,
    Sandbox,
    SandboxError,
    SandboxLimits,
    Started,
    bot_environment,
    claim_first,
    filled_pipe,
    job_for,
)
from arena.sandbox.cgroups import TURN_SHARES, Cgroups
from arena.sandbox.seccomp import seccomp_program
from arena.sandbox.warm import POOL, Prepared
from arena.sandbox.zygote import NAMESPACES, ForkedProcess, Zygote, ZygoteError
from arena.submissions import copy_code

SLOT_UIDS = range(61000, 62000)
SLOT_LOCKS = Path("/run/card-arena/slots")
"""A lock file per slot uid: the slot (the uid and its cgroups) is a process's while it holds the
lock (``flock``, which dies with the process). A fixed folder of the machine's, not the temp
folder, which a service may have of its own (systemd's PrivateTmp) and a process may choose
(``TMPDIR``), while uids and cgroups are the whole machine's: every arena process of the machine
claims from the same locks. Containers on one host bind the host's ``/run/card-arena`` here
(``deploy/docker-compose.yml``)."""


def _pid_namespace() -> int:
    """This process's pid namespace (its inode number): the one where its pids mean what they say."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:  # not Linux: no sandbox here
        return 0


FOLDER_PREFIX = f"card-arena-ns{_pid_namespace()}-pid"
"""Of the host folders a sandbox binds (the bot's code, its door): ``card-arena-nsNS-pidPID-...``,
PID being the process that made them, so that those a killed process left behind can be swept,
and NS its pid namespace, where that PID is its: another namespace's PID is another process (an
arena in a container or a pid namespace of its own, its temp folder the same)."""


def sweep_leftovers() -> list[Path]:
    """Remove the sandbox folders of processes of this pid namespace that are gone (killed before
    they could); the folders removed."""
    swept = []
    for folder in Path(tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*-*-*"):
        pid = folder.name.removeprefix(FOLDER_PREFIX).split("-", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            swept.append(folder)
    return swept


def _other_packages(runtime: PythonRuntime) -> list[Path]:
    """The folders of Python packages in view that are not the bot runtime's: the site-packages
    of the installation its venv is based on, and the distribution's (``/usr/lib/python3*``,
    ``/usr/local/lib/python3*``), where a server installed without a venv (a container's) or the
    distribution's own Python libraries live. Each is hidden behind an empty folder, so that a bot
    cannot put them on its path."""
    roots = {runtime.base_prefix / "lib", Path("/usr/lib"), Path("/usr/local/lib")}
    found = {path for root in roots for path in root.glob("python3*/*-packages") if path.is_dir()}
    return sorted(path for path in found if not path.is_relative_to(runtime.folder))


def _kernel_at_least(version: tuple[int, int]) -> bool:
    release = re.match(r"(\d+)\.(\d+)", os.uname().release)
    return release is not None and (int(release[1]), int(release[2])) >= version


def _running(pid: int) -> bool:
    """Whether ``pid`` runs: a killed process may stay a zombie until some init reaps it."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[:1] not in (["Z"], ["X"])


BOT_SOURCES = (
    "__init__.py",
    "bots.py",
    "loop.py",
    "manifest.py",
    "submissions.py",
    "games",
    "wire",
    "transport/__init__.py",
    "transport/grpc_io.py",
    "launch.py",
)
"""What a bot sees of the ``arena`` package (beside ``sdk``): the SDK's imports (the engines, the
wire, the event loop, the built-in bots' table and the submission rules it reads a bot folder by)
and the launcher's. Nothing of the store, the web app, tournaments, ratings, the ladder or the
workers, so a bot cannot import them."""
SOCKET_INSIDE = "/arena/arena.sock"
CODE_INSIDE = Path("/bot")
#: The entries of /proc a bot sees where /proc is masked: its own processes' (the numbered
#: folders, and these links to them). Everything else is masked.
PROC_OWN = {"self", "thread-self", "mounts", "net"}
PROC_SUBSET_KERNEL = (5, 8)
"""The first Linux whose /proc mounts as the process folders alone (``subset=pid``)."""
KILL_WAIT_S = 5.0
"""How long ``release`` keeps killing a slot's processes before it gives the slot up."""
_STATE = re.compile(rb"^State:\s*(\S)", re.MULTILINE)
_UIDS = re.compile(rb"^Uid:([^\n]*)", re.MULTILINE)
HOLDER_READY_S = 10.0
"""How long bubblewrap may take to set up a sandbox and start its holder."""
HOLDER = "echo ready && exec sleep infinity"
"""The holder's shell command: say the sandbox is ready on its stdout (a pipe), then wait."""
ZYGOTE = Zygote()
"""This process's fork server for bots."""


def _wait_for_exits(pids: set[int], deadline: float) -> None:
    """Until every process of ``pids`` has exited (a zombie has) or the ``deadline`` passes."""
    waiting: dict[int, int] = {}
    try:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                waiting[os.pidfd_open(pid)] = pid
        poller = select.poll()
        for pidfd in waiting:
            poller.register(pidfd, select.POLLIN)
        while waiting and (left := deadline - time.monotonic()) > 0:
            for pidfd, _ in poller.poll(left * 1000):
                poller.unregister(pidfd)
                os.close(pidfd)
                del waiting[pidfd]
    finally:
        for pidfd in waiting:
            os.close(pidfd)


class BubblewrapSandbox(Sandbox):
    name = "bubblewrap"
    isolates = True
    unshare: tuple[str, ...] = ("net", "pid", "ipc", "uts", "cgroup-try")
    """bubblewrap's new namespaces."""

    def __init__(
        self, limits: SandboxLimits | None = None, warm: bool = True, proc_subset: bool | None = None
    ) -> None:
        """``warm``: take sandboxes prepared ahead from this process's pool (``arena.sandbox.warm``).

        ``proc_subset`` (by default, where the kernel has it): the bot's /proc shows its processes'
        folders alone (``subset=pid``), mounted by the bot's process as it enters the sandbox.
        Otherwise bubblewrap mounts the whole /proc and masks every other entry, a mount each:
        some 6 ms of a sandbox's set-up (bubblewrap reads the mount table again at every one)."""
        self.limits = limits or SandboxLimits()
        self.warm = warm
        self.proc_subset = _kernel_at_least(PROC_SUBSET_KERNEL) if proc_subset is None else proc_subset
        self.runtime = python_runtime()
        if not self.runtime.installed():
            raise SandboxError(self.runtime.missing())
        self.runtime_base = self.runtime.base_prefix
        self.hidden_packages = _other_packages(self.runtime)
        """Folders of packages in view that a bot must not import from (an empty folder over each)."""
        if shutil.which("bwrap") is None:
            raise SandboxError(
                "bubblewrap sandbox unavailable: bwrap not found (Debian: apt-get install bubblewrap)"
            )
        if os.geteuid() != 0:
            raise SandboxError("the bubblewrap sandbox runs bots under per-slot uids and needs root")
        self.bwrap = shutil.which("bwrap") or "bwrap"
        self.seccomp = seccomp_program()
        self.proc_masks = [] if self.proc_subset else self._proc_masks()
        self.cgroups = Cgroups()
        self._slots: dict[int, Prepared] = {}
        self._shares: dict[int, int] = {}
        """Each started slot's ``cpu.shares``, open (``turn``)."""
        self._stuck: list[IO[str]] = []
        """Locks of uids whose processes could not be killed: held for good."""
        sweep_leftovers()

    # -- uid slots: one uid per running bot, claimed with a lock file so that concurrent
    #    matches on this machine never share one --

    def _claim_uid(self) -> tuple[int, IO[str]]:
        """A free slot's uid, and its lock. An arena process that dies lets its slots' locks go
        at once, while its bots die with their sandboxes a moment later (a filled process limit
        held for 100-500 ms more): what the slot's cgroups still hold is killed and waited for
        first, as no live arena process's (the lock is this one's)."""
        while (claimed := claim_first(SLOT_LOCKS, SLOT_UIDS)) is not None:
            uid, lock = claimed
            if not self.cgroups.members(uid) or self._kill_all(uid):
                return claimed
            self._stuck.append(lock)  # never reuse a uid whose processes would not die
        raise SandboxError("no free bot uid slot")

    def uid_of(self, slot: int) -> int:
        return self._slots[slot].uid

    def start(self, program: BotProgram, socket: Path, token: str, slot: int) -> Started:
        prepared = POOL.take(self._kind(), self._prepare, self._discard) if self.warm else None
        if prepared is None:
            prepared = self._prepare()
        self._slots[slot] = prepared
        if program.code_dir is not None:
            copy_code(program.code_dir, prepared.code)
        try:
            os.link(socket, prepared.door / Path(SOCKET_INSIDE).name)
        except OSError as error:
            raise SandboxError(f"cannot show the arena's socket to the bot: {error}") from error
        code_inside = CODE_INSIDE if program.code_dir is not None else None
        where = cpus.here()
        self.cgroups.restart(prepared.uid, where)
        # Turns are weighed where a match keeps to fewer CPUs than the machine's (arena.sandbox.cpus).
        if where != cpus.HOME and (shares := self.cgroups.shares_file(prepared.uid)) is not None:
            self._shares[slot] = shares
        try:
            os.write(prepared.job, job_for(program, code_inside, f"unix://{SOCKET_INSIDE}", token))
        except OSError:
            pass  # it died waiting: no launcher record, so the match sees the sandbox's failure
        finally:
            os.close(prepared.job)
        return prepared.started

    def prepare_ahead(self, count: int, wait_s: float) -> None:
        if self.warm:
            POOL.expect(self._kind(), self._prepare, self._discard, count)
            POOL.wait_ready(count, wait_s)

    def _kind(self) -> Hashable:
        """What makes two sandboxes of this backend alike: only alike ones share prepared ones."""
        return (type(self), self.limits, self.unshare, self.seccomp, self.proc_subset, self.runtime)

    def _prepare(self) -> Prepared:
        """A new sandbox on a slot of its own, with a bot forked into it that waits for its job."""
        uid, lock = self._claim_uid()
        try:
            cgroup_procs = self.cgroups.prepare(uid, self.limits)
            code = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-code-"))
            door = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-door-"))
            for folder in (code, door):
                folder.chmod(0o755)
            holder, sandbox = self._hold(cgroup_procs, code, door)
            try:
                job, job_writer = os.pipe()
                started = self._fork(uid, cgroup_procs, job, sandbox)
            except BaseException:
                holder.kill()
                holder.wait()
                raise
            finally:
                for descriptor in sandbox:
                    os.close(descriptor)
            return Prepared(started, job_writer, uid, lock, code, door, holder)
        except BaseException:
            lock.close()
            raise

    def _fork(self, uid: int, cgroup_procs: list[Path], job: int, sandbox: list[int]) -> Started:
        """Have the zygote fork a bot into the ``sandbox`` (its root, then its namespaces) that
        waits on ``job``."""
        status, status_writer = os.pipe()
        stderr, stderr_writer = os.pipe()
        exit_pipe, exit_writer = os.pipe()
        request = {
            "uid": uid,
            "cgroups": [str(path) for path in cgroup_procs],
            "home": [str(path) for path in self.cgroups.home] if cgroup_procs else [],
            "rlimits": self._rlimits(),
            "seccomp": self.seccomp.hex(),
            "proc_subset": self.proc_subset,
            "env": {**bot_environment(), "HOME": "/tmp"},
        }
        try:
            pid = ZYGOTE.fork(request, [job, status_writer, stderr_writer, exit_writer, *sandbox])
        except ZygoteError as error:
            for descriptor in (status, stderr, exit_pipe):
                os.close(descriptor)
            raise SandboxError(str(error)) from error
        finally:
            for descriptor in (job, status_writer, stderr_writer, exit_writer):
                os.close(descriptor)
        return Started(ForkedProcess(pid, exit_pipe, os.fdopen(stderr, "rb")), status)

    def _rlimits(self) -> list[tuple[int, int, int]]:
        limits = self.limits
        rlimits = [
            # SIGXCPU at the soft limit (status ``cpu``); SIGKILL a second later if it is ignored.
            (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),
            (resource.RLIMIT_NPROC, limits.processes, limits.processes),
            (resource.RLIMIT_FSIZE, limits.file_size_mb * 1024 * 1024, limits.file_size_mb * 1024 * 1024),
            (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
            (resource.RLIMIT_CORE, 0, 0),
        ]
        # An address-space limit only where the memory cgroup cannot limit what the bot uses:
        # a JIT (Node.js, Java) reserves far more address space than it ever touches and dies
        # under any limit near what it needs, while the cgroup counts pages in use, the same for
        # every language.
        if "memory" not in self.cgroups.controllers:
            size = limits.memory_mb * 1024 * 1024
            rlimits.append((resource.RLIMIT_AS, size, size))
        return rlimits

    def _discard(self, prepared: Prepared) -> None:
        os.close(prepared.job)
        os.close(prepared.started.status)
        self._free(prepared)
        prepared.started.process.wait()
        if prepared.started.process.stderr is not None:
            prepared.started.process.stderr.close()

    def _hold(
        self, cgroup_procs: list[Path], code: Path, door: Path
    ) -> tuple[subprocess.Popen[bytes], list[int]]:
        """Start the slot's sandbox with its holder; the holder, and descriptors of the sandbox's
        root and of its namespaces (``NAMESPACES``), for the zygote to join."""
        seccomp = filled_pipe(self.seccomp)
        ready, ready_writer = os.pipe()
        info, info_writer = os.pipe()
        options = [*self._options(code, door), "--info-fd", str(info_writer), "--seccomp", str(seccomp)]
        # Every option through a pipe: the sandbox's init is bubblewrap, and its command line
        # (``/proc/1/cmdline``, readable by the bot) would show the host's paths.
        arguments = filled_pipe(b"".join(option.encode() + b"\0" for option in options))
        argv: list[str] = []
        if cgroup_procs:
            # Join the cgroups before bubblewrap starts, so no process of the slot is ever outside.
            join = "; ".join(f'echo $$ > "{path}"' for path in cgroup_procs)
            argv += ["/bin/sh", "-c", f'{join} && exec "$@"', "arena-cgroup"]
        argv += [self.bwrap, "--args", str(arguments), "--", "/bin/sh", "-c", HOLDER]
        descriptors = [seccomp, arguments, info_writer]
        try:
            with tempfile.TemporaryFile() as errors:
                try:
                    # bubblewrap itself starts with an empty environment: nothing in /proc/1/environ.
                    holder = subprocess.Popen(
                        argv,
                        stdin=subprocess.DEVNULL,
                        stdout=ready_writer,
                        stderr=errors,
                        env={},
                        pass_fds=descriptors,
                        start_new_session=True,
                    )
                except OSError as error:
                    raise SandboxError(f"cannot start {argv[0]}: {error}") from error
                finally:
                    for descriptor in [*descriptors, ready_writer]:
                        os.close(descriptor)
                waiting = select.poll()  # not select(): the arena may hold descriptors past 1024
                waiting.register(ready, select.POLLIN)
                if not waiting.poll(HOLDER_READY_S * 1000) or not os.read(ready, 16):
                    holder.kill()
                    holder.wait()
                    errors.seek(0)
                    said = errors.read(2048).decode(errors="replace").strip()
                    raise SandboxError(f"bubblewrap could not set up the sandbox: {said or 'no answer'}")
            return holder, self._join_points(holder, info)
        finally:
            os.close(ready)
            os.close(info)

    @staticmethod
    def _join_points(holder: subprocess.Popen[bytes], info: int) -> list[int]:
        """Descriptors of the sandbox's root and namespaces, from the pid bubblewrap's info gives."""
        text = b""
        decoder = json.JSONDecoder()
        while True:
            chunk = os.read(info, 4096)
            text += chunk
            try:
                pid = int(decoder.raw_decode(text.decode())[0]["child-pid"])
                break
            except (ValueError, KeyError):
                if not chunk:
                    raise SandboxError(f"bubblewrap said no sandbox pid: {text[:200]!r}") from None
        opened: list[int] = []
        try:
            opened.append(os.open(f"/proc/{pid}/root", os.O_RDONLY | os.O_DIRECTORY))
            for name in NAMESPACES:
                opened.append(os.open(f"/proc/{pid}/ns/{name}", os.O_RDONLY))
            # Still running, so that pid was not reused: these are the sandbox's own.
            if holder.poll() is not None:
                raise OSError(errno.ESRCH, "the sandbox ended")
        except OSError as error:
            for descriptor in opened:
                os.close(descriptor)
            holder.kill()
            holder.wait()
            raise SandboxError(f"cannot reach the bot's sandbox: {error}") from error
        return opened

    def _options(self, code: Path, door: Path) -> list[str]:
        """bubblewrap's options for a bot's sandbox: its namespaces and what it sees."""
        limits = self.limits
        options = [f"--unshare-{name}" for name in self.unshare]
        options += [
            "--die-with-parent",
            "--new-session",
            # The holder stays root, so that the bot's uid can neither signal nor trace it, but
            # without a single capability.
            "--cap-drop",
            "ALL",
            "--hostname",
            "bot",
            "--ro-bind",
            "/usr",
            "/usr",
        ]
        for name in ("bin", "lib", "lib64", "sbin"):
            host = Path("/") / name
            if host.is_symlink():
                options += ["--symlink", os.readlink(host), str(host)]
            elif host.is_dir():
                options += ["--ro-bind", str(host), str(host)]
        # The private /tmp first: the runtime or the sources may live under /tmp on the host, and
        # their binds must land on top of it, not be hidden beneath it.
        options += ["--perms", "1777", "--size", str(limits.tmpfs_mb * 1024 * 1024), "--tmpfs", "/tmp"]
        arena = SOURCE_ROOT / "arena"
        shared = [
            self.runtime_base,
            self.runtime.folder,
            *(arena / name for name in BOT_SOURCES),
            SOURCE_ROOT / "sdk",
        ]
        # bubblewrap makes missing parents of a mount point private (0700); the bot's uid must
        # be able to walk through them, so create them first, world-searchable.
        parents = sorted({parent for path in shared for parent in path.parents if parent != Path("/")})
        for parent in parents:
            if parent not in shared:
                options += ["--perms", "0755", "--dir", str(parent)]
        for folder in shared:
            options += ["--ro-bind", str(folder), str(folder)]
        for packages in self.hidden_packages:
            options += ["--perms", "0555", "--tmpfs", str(packages)]
        # The bot's code and the match's socket arrive later, in folders bound now.
        options += ["--ro-bind", str(code), str(CODE_INSIDE)]
        options += ["--ro-bind", str(door), str(Path(SOCKET_INSIDE).parent)]
        # A /proc of the process folders alone is mounted by the bot's process (the zygote's).
        proc = ["--dir", "/proc"] if self.proc_subset else ["--proc", "/proc", *self.proc_masks]
        options += [*proc, "--dev", "/dev", "--chdir", "/tmp", "--clearenv"]
        return options

    @staticmethod
    def _proc_masks() -> list[str]:
        """Options that hide every file of /proc outside the process folders, where the kernel
        cannot mount it without them: they count what the whole machine does (load, memory,
        locks, open files, interrupts, pressure, ...), a channel between two bots at the same
        table. Files read as EACCES (a device on a nodev mount), folders are empty and read-only."""
        masks = []
        for entry in sorted(os.listdir("/proc")):
            if entry.isdigit() or entry in PROC_OWN:
                continue
            inside = f"/proc/{entry}"
            if os.path.isdir(inside):
                masks += ["--perms", "0555", "--tmpfs", inside]
            else:
                masks += ["--ro-bind", "/dev/null", inside]
        return masks

    def memory_exceeded(self, slot: int) -> bool:
        return slot in self._slots and self.cgroups.memory_exceeded(self._slots[slot].uid)

    def cpu_exceeded(self, slot: int) -> bool:
        """The slot's tree used its CPU seconds: a bot that ignores SIGXCPU dies by the SIGKILL of the
        hard limit, which alone would read as a crash."""
        if slot not in self._slots:
            return False
        used = self.cgroups.cpu_seconds(self._slots[slot].uid)
        return used is not None and used >= self.limits.cpu_seconds

    def turn(self, slot: int, full: bool) -> None:
        # A bot's busy children, or its thinking on the others' turns, would otherwise take half
        # the CPU from the bot whose turn it is (the whole of it where a match keeps to one CPU).
        if (shares := self._shares.get(slot)) is not None:
            with contextlib.suppress(OSError):
                os.pwrite(shares, TURN_SHARES[full], 0)

    def release(self, slot: int) -> None:
        if (shares := self._shares.pop(slot, None)) is not None:
            os.close(shares)
        prepared = self._slots.pop(slot, None)
        if prepared is None:
            return
        if self.warm:
            POOL.done()
        self._free(prepared)

    def _free(self, prepared: Prepared) -> None:
        """Kill every process of a prepared sandbox's slot and give the slot back."""
        for folder in (prepared.code, prepared.door):
            shutil.rmtree(folder, ignore_errors=True)
        killed = self._kill_all(prepared.uid, relay=prepared.started.process.pid)
        prepared.holder.kill()
        prepared.holder.wait()
        ZYGOTE.reap(prepared.started.process.pid)
        if not killed:
            self._stuck.append(prepared.lock)  # never reuse a uid whose processes would not die
            return
        self.cgroups.release(prepared.uid)
        prepared.lock.close()

    def _kill_all(self, uid: int, relay: int | None = None) -> bool:
        """SIGKILL every process of a slot until none is left: whatever is in its cgroups, and
        whatever runs as its uid (a bot's processes may outlive its main process, for a moment
        after its namespace's init died or for good if they escaped it). All but the bot's
        ``relay``, if given, which is waited for: it reaps the bot and then ends (killed first, it would
        leave the bot to the host's init). ``False`` if some would not end within ``KILL_WAIT_S``.

        The cgroups' members, nearly always all there is, are killed and waited for (their
        pidfds, no CPU spent) before the first look through ``/proc``, which reads every process's
        status: some 3 ms of CPU. Looking again and again while they died took the CPU from them:
        on a match's one CPU (``arena.sandbox.cpus``), a match's 4 bots took 41-75 looks and
        150-320 ms to end; with the wait, one look each."""
        deadline = time.monotonic() + KILL_WAIT_S
        pids = self.cgroups.members(uid)
        relays = set() if relay is None else {relay}
        while True:
            for pid in pids - relays:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            # The relay, out of the cgroups by now, reaps the bot (a zombie holds the uid), then ends.
            _wait_for_exits(pids | relays if pids - relays else pids, deadline)
            if not (pids := self._processes(uid)):
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)  # a zombie holding the uid, say: its reaper has yet to run

    def _processes(self, uid: int) -> set[int]:
        """The slot's processes: live members of its cgroups (the root-owned bubblewrap init
        may stay a zombie until the host's init reaps it), and every process, zombie or not,
        that holds its uid (as its real, effective, saved or filesystem uid)."""
        pids: set[int] = set()
        members = self.cgroups.members(uid)
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/status", "rb") as status:
                    text = status.read()
            except OSError:
                continue  # gone meanwhile
            state, uids = _STATE.search(text), _UIDS.search(text)
            if state is None or uids is None:
                continue
            pid = int(name)
            holds_uid = uid in (int(value) for value in uids[1].split())
            if holds_uid or (pid in members and state[1] != b"Z"):
                pids.add(pid)
        return pids
