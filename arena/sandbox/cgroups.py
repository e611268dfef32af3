"""The per-slot v1 cgroups of the bubblewrap sandbox, where those controllers are writable.

They hold memory, pids, a CPU quota and weight, CPU accounting and the CPUs a bot may run on. A
slot's folder is ``card-arena/slot-UID`` under each controller. Preparing the slot makes it where it
is missing, writes the limits again and sets the counters to zero; a folder still busy when the slot
is released stays for the slot's next use.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from arena.sandbox import cpus
from arena.sandbox.base import SandboxError, SandboxLimits

CGROUP_ROOT = Path("/sys/fs/cgroup")
MEMORY_FAILURES = ("memory.failcnt", "memory.memsw.failcnt")
"""How often a slot's tree hit its memory limit, and its memory plus swap limit (the same size,
and the one hit first where swap is accounted)."""
CPU_PERIOD_US = 10_000
"""The period of a slot's CPU quota (``SandboxLimits.cpus`` of it per period)."""
WARMING_SHARES, PLAYING_SHARES, WAITING_SHARES = 64, 1024, 2
"""A slot's CPU weight while its interpreter starts ahead of a match; once it plays (and from its
turn to its answer, and at a game's end); and from its answer to its next turn (the least there
is), while the other bots decide."""
TURN_SHARES = {True: str(PLAYING_SHARES).encode(), False: str(WAITING_SHARES).encode()}


class Cgroups:
    """Per-slot v1 cgroups for memory, pids, CPU share, CPU accounting and the CPUs a bot may
    run on, where those controllers are writable."""

    def __init__(self) -> None:
        self.controllers = [
            name
            for name in ("memory", "pids", "cpu", "cpuacct", "cpuset")
            if os.access(CGROUP_ROOT / name, os.W_OK)
        ]
        self._oom_kills_before: dict[int, int] = {}
        """Each slot's count of memory kills when it was prepared: a reused cgroup keeps counting."""
        self.home = self._home(self.controllers)
        """Where a relay goes back to once it has forked its bot: the arena's (and its zygote's) cgroups."""

    def folder(self, controller: str, uid: int) -> Path:
        return CGROUP_ROOT / controller / "card-arena" / f"slot-{uid}"

    def prepare(self, uid: int, limits: SandboxLimits) -> list[Path]:
        procs = []
        for controller in self.controllers:
            folder = self.folder(controller, uid)
            try:
                folder.mkdir(parents=True, exist_ok=True)
                if controller == "memory":
                    size = str((limits.memory_mb + limits.tmpfs_mb) * 1024 * 1024)
                    # Memory plus swap too, where swap is accounted: else the tree swaps past it.
                    names = ["memory.limit_in_bytes", "memory.memsw.limit_in_bytes"]
                    names = [name for name in names if (folder / name).exists()]
                    try:
                        for name in names:
                            (folder / name).write_text(size)
                    except OSError:  # raising a reused slot's limits: memory + swap goes first
                        for name in reversed(names):
                            (folder / name).write_text(size)
                    for name in MEMORY_FAILURES:
                        if (folder / name).exists():
                            (folder / name).write_text("0")
                    self._oom_kills_before[uid] = self._oom_kills(uid)
                elif controller == "pids":
                    (folder / "pids.max").write_text(str(limits.processes))
                elif controller == "cpu":
                    # A quota for the whole tree: RLIMIT_CPU is per process, and a bot's busy
                    # children would otherwise take every core from the other bots.
                    (folder / "cpu.cfs_period_us").write_text(str(CPU_PERIOD_US))
                    (folder / "cpu.cfs_quota_us").write_text(str(round(limits.cpus * CPU_PERIOD_US)))
                    # Started ahead, it imports at a low weight: the bots playing come first.
                    (folder / "cpu.shares").write_text(str(WARMING_SHARES))
                elif controller == "cpuset":
                    self._cpuset(folder)
                else:  # a reused slot counts from zero
                    (folder / "cpuacct.usage").write_text("0")
            except OSError as error:
                raise SandboxError(f"cannot set up the {controller} cgroup {folder}: {error}") from error
            procs.append(folder / "cgroup.procs")
        return procs

    @staticmethod
    def _cpuset(folder: Path) -> None:
        """A v1 cpuset has no CPUs and no memory nodes until it is given some, and a task cannot
        join it before: the machine's, for the slots' parent; every CPU of the arena's, for a
        slot being prepared (its bot is held to its match's CPUs once it starts, ``restart``)."""
        root = CGROUP_ROOT / "cpuset"
        for name in ("cpuset.cpus", "cpuset.mems"):
            if not (folder.parent / name).read_text().strip():
                (folder.parent / name).write_text((root / name).read_text())
        (folder / "cpuset.mems").write_text((folder.parent / "cpuset.mems").read_text())
        (folder / "cpuset.cpus").write_text(cpus.cpu_list(cpus.HOME))

    @staticmethod
    def _home(controllers: list[str]) -> list[Path]:
        """The ``cgroup.procs`` of this process's own cgroups, one for each of ``controllers``."""
        paths = {}
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            for name in names.split(","):
                paths[name] = path.lstrip("/")
        return [CGROUP_ROOT / name / paths[name] / "cgroup.procs" for name in controllers if name in paths]

    def members(self, uid: int) -> set[int]:
        """The processes in ``uid``'s cgroups."""
        pids: set[int] = set()
        for controller in self.controllers:
            with contextlib.suppress(OSError, ValueError):
                text = (self.folder(controller, uid) / "cgroup.procs").read_text()
                pids.update(int(pid) for pid in text.split())
        return pids

    def memory_exceeded(self, uid: int) -> bool:
        if "memory" not in self.controllers:
            return False
        folder = self.folder("memory", uid)
        for name in MEMORY_FAILURES:
            with contextlib.suppress(OSError, ValueError):
                if int((folder / name).read_text()) > 0:
                    return True
        return self._oom_kills(uid) > self._oom_kills_before.get(uid, 0)

    def _oom_kills(self, uid: int) -> int:
        """Processes of the slot's tree the kernel has killed for memory, ever (it cannot be reset)."""
        try:
            text = (self.folder("memory", uid) / "memory.oom_control").read_text()
        except OSError:
            return 0
        fields = dict(line.split() for line in text.splitlines() if len(line.split()) == 2)
        return int(fields.get("oom_kill", "0")) if fields.get("oom_kill", "0").isdigit() else 0

    def cpu_seconds(self, uid: int) -> float | None:
        """CPU time used by ``uid``'s process tree since the slot was prepared, if accounted."""
        if "cpuacct" not in self.controllers:
            return None
        try:
            return int((self.folder("cpuacct", uid) / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def shares_file(self, uid: int) -> int | None:
        """The slot's ``cpu.shares``, open for writing, where there is one."""
        if "cpu" not in self.controllers:
            return None
        with contextlib.suppress(OSError):
            return os.open(self.folder("cpu", uid) / "cpu.shares", os.O_WRONLY | os.O_CLOEXEC)
        return None

    def restart(self, uid: int, where: frozenset[int]) -> None:
        """The slot's bot starts now: its CPU counts from zero, at the normal weight, and it runs
        on the CPUs ``where`` only (its arena's: ``arena.sandbox.cpus``). Each write stands on its
        own: one refused leaves the others done."""
        writes = (
            ("cpuacct", "cpuacct.usage", "0"),
            ("cpu", "cpu.shares", str(PLAYING_SHARES)),
            ("cpuset", "cpuset.cpus", cpus.cpu_list(where)),
        )
        for controller, name, value in writes:
            if controller in self.controllers:
                with contextlib.suppress(OSError):
                    (self.folder(controller, uid) / name).write_text(value)

    def release(self, uid: int) -> None:
        for controller in self.controllers:
            with contextlib.suppress(OSError):  # still busy: the next use of the slot resets it
                self.folder(controller, uid).rmdir()
