"""Running bot processes: the sandbox interface, its limits, and the trusted ``none`` backend."""

from __future__ import annotations

import os
import sys
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path

SOURCE_ROOT = Path(__file__).resolve().parents[2]


class SandboxError(Exception):
    """The sandbox itself failed (an infrastructure fault, never the bot's loss)."""


@dataclass(frozen=True)
class SandboxLimits:
    """What one bot process tree may use. Defaults suit a Python bot; tournaments may change them."""

    memory_mb: int = 512
    """Address space per process (RLIMIT_AS) and, with cgroups, the whole tree's memory."""
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


@dataclass(frozen=True)
class BotProgram:
    """What to run: a built-in bot by name, or a bot file inside a code folder."""

    game: str
    builtin: str | None = None
    """``NAME`` of ``builtin:NAME``."""
    code_dir: Path | None = None
    """The folder holding the bot's code (made read-only in a sandbox)."""
    entry: str = ""
    """The entry point's path relative to ``code_dir``."""

    def describe(self) -> str:
        """The bot spec as a user would write it: ``builtin:NAME`` or the entry file's path."""
        if self.builtin is not None:
            return f"builtin:{self.builtin}"
        assert self.code_dir is not None
        return str(self.code_dir / self.entry)

    @staticmethod
    def from_spec(game: str, spec: str) -> BotProgram:
        if spec.startswith("builtin:"):
            return BotProgram(game=game, builtin=spec.removeprefix("builtin:"))
        path = Path(spec).resolve()
        return BotProgram(game=game, code_dir=path.parent, entry=path.name)


@dataclass
class Launch:
    """A ready command line: run ``argv`` with exactly ``env`` and ``pass_fds`` kept open."""

    argv: list[str]
    env: dict[str, str]
    pass_fds: tuple[int, ...] = ()
    close_after_start: list[int] = field(default_factory=list)
    """File descriptors the launcher closes once the process has started."""


def python_arguments(program: BotProgram, code_dir: Path | None) -> list[str]:
    """The interpreter's arguments for ``program``, its code folder seen at ``code_dir``."""
    if program.builtin is not None:
        return ["-m", "sdk", f"builtin:{program.builtin}", "--game", program.game]
    assert code_dir is not None
    return [str(code_dir / program.entry)]


def bot_environment(address: str, token: str) -> dict[str, str]:
    """A bot's whole environment: nothing of the arena's own (no secrets), only what it needs."""
    return {
        "ARENA_ADDRESS": address,
        "ARENA_TOKEN": token,
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "PYTHONPATH": str(SOURCE_ROOT),
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "MALLOC_ARENA_MAX": "2",
        "LANG": "C.UTF-8",
    }


class Sandbox(ABC):
    """A way to start a bot process. ``isolates`` says whether untrusted code may run in it."""

    name: str
    isolates: bool

    @abstractmethod
    def launch(self, program: BotProgram, socket: Path, token: str, slot: int) -> Launch:
        """The command that runs ``program`` so that it reaches the arena at ``socket``."""

    def release(self, slot: int) -> None:  # noqa: B027 (most backends hold nothing per slot)
        """Free what ``launch`` took for ``slot`` once its process tree is gone."""

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

    def launch(self, program: BotProgram, socket: Path, token: str, slot: int) -> Launch:
        argv = [sys.executable, *python_arguments(program, program.code_dir)]
        return Launch(argv=argv, env=bot_environment(f"unix://{socket}", token))


def os_supports_sandboxing() -> bool:
    return sys.platform.startswith("linux") and os.path.exists("/proc/self/ns/pid")
