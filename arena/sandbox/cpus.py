"""A match keeps to one CPU.

A match is a ping-pong whose processes never run at the same time, so each executor process (the
local pool's, a Celery worker's) claims a CPU of its own for its life, with a lock per CPU that every
executor on the machine shares, and runs there with its bots (a sandboxed bot is held to it by its
slot's cpuset cgroup). Sandboxes prepared ahead are not held. Executor processes left without a CPU
run wherever the kernel puts them. ``ARENA_PIN_CPU=0`` turns it off.

Why, and the figures: docs/sandbox.md.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import IO

from arena.sandbox.base import claim_first

HOME = frozenset(os.sched_getaffinity(0))
"""The CPUs this process was given: a claim takes one of them, the warm pool's thread keeps all."""
CPU_LOCKS = Path(tempfile.gettempdir()) / "card-arena-cpus"
_claimed: list[tuple[int, IO[str]]] = []
"""The claimed CPU and its lock, held as long as the process lives."""


def claim() -> int | None:
    """Claim a CPU no other executor process of this machine holds, and run this process on it
    (every thread it has, and those they start). ``None``: every CPU is taken, or there is only
    one, or ``ARENA_PIN_CPU=0`` says not to; then nothing changes. Claiming twice keeps the first CPU."""
    if _claimed:
        return _claimed[0][0]
    if os.environ.get("ARENA_PIN_CPU") == "0" or len(HOME) < 2:
        return None
    if (claimed := claim_first(CPU_LOCKS, sorted(HOME))) is None:
        return None
    cpu = claimed[0]
    _claimed.append(claimed)
    for thread in os.listdir("/proc/self/task"):
        os.sched_setaffinity(int(thread), {cpu})
    return cpu


def here() -> frozenset[int]:
    """The CPUs the calling thread may run on."""
    return frozenset(os.sched_getaffinity(0))


def everywhere() -> None:
    """Let the calling thread run on every CPU of ``HOME`` again (the warm pool's thread)."""
    os.sched_setaffinity(0, HOME)


def cpu_list(cpus: frozenset[int]) -> str:
    """``cpus`` as a cpuset file takes them: ``0,2,3``."""
    return ",".join(str(cpu) for cpu in sorted(cpus))
