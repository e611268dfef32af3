"""Running bot processes: the sandbox interface, its limits, and the trusted ``none`` backend."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

from arena.launch import EXEC, STARTED, encode_job
from arena.manifest import MANIFEST, SOURCE_ROOT, ManifestError, bot_python, read_manifest

LAUNCHER = Path(__file__).resolve().parents[1] / "launch.py"


class SandboxError(Exception):
    """The sandbox itself failed (an infrastructure fault, never the bot's loss)."""


@dataclass(frozen=True)
class SandboxLimits:
    """What one bot process tree may use. Defaults suit a Python bot; tournaments may change them."""

    memory_mb: int = 512
    """Memory the whole tree may use (a cgroup limit, with ``tmpfs_mb`` on top for its /tmp);
    without the memory cgroup, the address space per process (RLIMIT_AS)."""
    cpu_seconds: int = 120
    """CPU time per process (RLIMIT_CPU); past it the bot is killed with status ``cpu``."""
    processes: int = 32
    """Processes and threads of the bot's uid (RLIMIT_NPROC) and, with cgroups, of the tree."""
    file_size_mb: int = 8
    """Largest file the bot may write (RLIMIT_FSIZE)."""
    open_files: int = 128
    """Open file descriptors (RLIMIT_NOFILE)."""
    tmpfs_mb: int = 16
    """Size of the bot's private /tmp."""
    cpus: float = 1.0
    """CPUs the whole tree may keep busy at once, on average (a cgroup CPU quota, where the
    controller is writable)."""


@dataclass(frozen=True)
class BotProgram:
    """What to run: a built-in bot by name, or a bot file inside a code folder."""

    game: str
    builtin: str | None = None
    """``NAME`` of ``builtin:NAME``."""
    code_dir: Path | None = None
    """The folder holding the bot's code (made read-only in a sandbox)."""
    entry: str = ""
    """The entry point's path relative to ``code_dir``: a Python file, or the manifest
    (``arena-bot.toml``) that says how the bot runs."""

    def describe(self) -> str:
        """The bot spec as a user would write it: ``builtin:NAME``, the entry file's path, or the
        folder of a bot with a manifest."""
        if self.builtin is not None:
            return f"builtin:{self.builtin}"
        assert self.code_dir is not None
        return str(self.code_dir if self.entry == MANIFEST else self.code_dir / self.entry)

    @staticmethod
    def from_spec(game: str, spec: str) -> BotProgram:
        if spec.startswith("builtin:"):
            return BotProgram(game=game, builtin=spec.removeprefix("builtin:"))
        path = Path(spec).resolve()
        if path.is_dir():  # a bot folder: its manifest says how it runs
            return BotProgram(game=game, code_dir=path, entry=MANIFEST)
        return BotProgram(game=game, code_dir=path.parent, entry=path.name)


@dataclass
class Launch:
    """A ready command line: run ``argv`` with exactly ``env`` and ``pass_fds`` kept open."""

    argv: list[str]
    env: dict[str, str]
    status: int
    """The read end of the launcher's status pipe (see ``arena.launch``)."""
    pass_fds: tuple[int, ...] = ()
    close_after_start: list[int] = field(default_factory=list)
    """File descriptors the arena closes once the process has started."""


class BotProcess(Protocol):
    """What the arena uses of a bot's process: ``subprocess.Popen``, or a bot the zygote forked."""

    pid: int
    returncode: int | None
    stderr: IO[bytes] | None

    def poll(self) -> int | None: ...

    def wait(self) -> int: ...


@dataclass
class Started:
    """A bot's process, started: its own session, stdin and stdout closed, stderr a pipe."""

    process: BotProcess
    status: int
    """The read end of the launcher's status pipe."""

    def started(self) -> bool:
        """Whether the launcher got as far as the bot's code: the sandbox did its part. Read
        once the process has exited or is overdue (the record is written before the bot's
        code runs, so by then it is there or never will be); closes the pipe."""
        os.set_blocking(self.status, False)
        try:
            record = os.read(self.status, len(STARTED))
        except BlockingIOError:
            record = b""
        finally:
            os.close(self.status)
        return record == STARTED


def spawn(launch: Launch) -> Started:
    """Start ``launch``'s command (``SandboxError`` if it cannot be)."""
    try:
        process = subprocess.Popen(
            launch.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=launch.env,
            pass_fds=launch.pass_fds,
            start_new_session=True,
        )
    except OSError as error:
        os.close(launch.status)
        raise SandboxError(f"cannot start {launch.argv[0]}: {error}") from error
    finally:
        for descriptor in launch.close_after_start:
            os.close(descriptor)
    return Started(process, launch.status)


def filled_pipe(data: bytes) -> int:
    """The read end of a pipe holding ``data``, for a child to read to its end."""
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    return read_end


@dataclass
class Launcher:
    """The interpreter's command that runs ``program`` through the launcher, and its pipes."""

    argv: list[str]
    pass_fds: list[int]
    """The job's and the status pipe's ends for the child, closed by the arena after the start."""
    status: int


def job_for(program: BotProgram, code_dir: Path | None, address: str, token: str) -> bytes:
    """The launcher's job: run ``program`` (its code folder seen at ``code_dir``), to reach the
    arena at ``address``."""
    if program.builtin is not None:
        command = ["-m", "sdk", f"builtin:{program.builtin}", "--game", program.game]
    elif program.entry == MANIFEST:
        assert program.code_dir is not None and code_dir is not None
        try:
            manifest = read_manifest(program.code_dir)
        except ManifestError as error:  # checked when the bot was taken: its folder changed since
            raise SandboxError(f"cannot run the bot: {error}") from None
        command = [EXEC, str(code_dir), *manifest.command(code_dir)]
    else:
        assert code_dir is not None
        command = [str(code_dir / program.entry)]
    return encode_job(address, token, command)


def launcher(job: int) -> Launcher:
    """The launcher's command on the Python bot runtime, reading its job from the pipe ``job``."""
    status, status_for_child = os.pipe()
    # -I: nothing of the environment or the current folder reaches the launcher; -u and -B for
    # the PYTHONUNBUFFERED and PYTHONDONTWRITEBYTECODE that -I ignores.
    argv = [bot_python(), "-I", "-u", "-B", str(LAUNCHER), str(job), str(status_for_child)]
    return Launcher(argv=argv, pass_fds=[job, status_for_child], status=status)


def claim_first(folder: Path, numbers: Iterable[int]) -> tuple[int, IO[str]] | None:
    """The first of ``numbers`` whose lock file in ``folder`` no process of this machine holds,
    and that lock, held by this process until the file is closed (or the process ends)."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    for number in numbers:
        handle = open(folder / f"{number}.lock", "w")  # noqa: SIM115 (held by the caller)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        return number, handle
    return None


def bot_environment() -> dict[str, str]:
    """A bot's whole environment: nothing of the arena's own (no secrets), only what it needs.
    The arena's address and the token come from the launcher."""
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "PYTHONPATH": str(SOURCE_ROOT),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MALLOC_ARENA_MAX": "2",
        # numpy's BLAS would start a thread per CPU of the machine at its import, against a quota
        # of one CPU (SandboxLimits.cpus) and 32 processes a bot.
        "OPENBLAS_NUM_THREADS": "1",
        "LANG": "C.UTF-8",
    }


class Sandbox(ABC):
    """A way to start a bot process. ``isolates`` says whether untrusted code may run in it."""

    name: str
    isolates: bool

    @abstractmethod
    def start(self, program: BotProgram, socket: Path, token: str, slot: int) -> Started:
        """Start ``program`` so that it reaches the arena at ``socket`` with ``token``. Call it
        from a thread that outlives the process (the process may die with that thread)."""

    def release(self, slot: int) -> None:  # noqa: B027 (most backends hold nothing per slot)
        """Free what ``start`` took for ``slot`` once its process tree is gone."""

    def turn(self, slot: int, full: bool) -> None:  # noqa: B027 (most cannot weigh a process tree)
        """``slot``'s bot is asked for a decision now, or its game ended (``full``), or it has
        answered: from its answer to its next turn or the game's end, its process tree yields the
        CPU to the bot whose turn it is."""

    def prepare_ahead(self, count: int, wait_s: float) -> None:  # noqa: B027 (most start nothing ahead)
        """Have ``count`` bots' sandboxes ready before any ``start`` asks, waiting up to ``wait_s``
        for them: this process is about to play matches of ``count`` seats."""

    def memory_exceeded(self, slot: int) -> bool:
        """Whether ``slot``'s process tree hit its memory limit (where the sandbox can tell)."""
        return False

    def cpu_exceeded(self, slot: int) -> bool:
        """Whether ``slot``'s process tree used up its CPU time (where the sandbox can tell)."""
        return False


class NoSandbox(Sandbox):
    """Plain processes: trusted local development only (built-ins and your own bots)."""

    name = "none"
    isolates = False

    def start(self, program: BotProgram, socket: Path, token: str, slot: int) -> Started:
        job = filled_pipe(job_for(program, program.code_dir, f"unix://{socket}", token))
        command = launcher(job)
        return spawn(
            Launch(
                argv=command.argv,
                env=bot_environment(),
                status=command.status,
                pass_fds=tuple(command.pass_fds),
                close_after_start=command.pass_fds,
            )
        )


def os_supports_sandboxing() -> bool:
    return sys.platform.startswith("linux") and os.path.exists("/proc/self/ns/pid")
