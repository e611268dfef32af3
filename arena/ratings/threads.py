"""How the ratings use this machine's threads: a second thread for half of the work, BLAS on one.

The games are split, not the linear algebra: their layouts (one per number of units and team size) fall
into two fixed groups of about equal work (``two_groups``), evaluated at once on two threads where two
CPUs are free to this process (``in_parallel``: the compiled kernels release the GIL), one after the
other otherwise. The groups depend on the results only, so the sums, and the ladder, come out the same
to the last bit on any machine. ``arena.ratings.load`` reads a large SQLite store in two halves on the
same two threads.

BLAS runs on the calling thread only during a fit (``one_blas_thread``: OpenBLAS's thread-local
setting, restored after): the ladder's thousand-bot factorisations are as fast on one thread, and on a
busy machine OpenBLAS's spinning worker threads made them 5-10 times slower.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import cache
from typing import TypeVar

_First = TypeVar("_First")
_Second = TypeVar("_Second")


_POOLS: dict[int, ThreadPoolExecutor] = {}


def in_parallel(first: Callable[[], _First], second: Callable[[], _Second]) -> tuple[_First, _Second]:
    """``first()`` in this thread and ``second()`` on this process's second thread at once where the
    process may use two CPUs (compiled kernels, numpy's long loops and SQLite release the GIL), else
    one after the other. Never call it from inside ``second``: that thread would wait on itself."""
    pending = _pool().submit(second) if _cpus() >= 2 else None
    done = first()
    return done, pending.result() if pending is not None else second()


def _pool() -> ThreadPoolExecutor:
    """The thread that runs the second half of ``in_parallel``; one per process, so that a forked
    child never waits on its parent's thread."""
    pool = _POOLS.get(os.getpid())
    if pool is None:
        pool = _POOLS[os.getpid()] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ratings")
    return pool


def _cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def two_groups(costs: Sequence[int]) -> tuple[list[int], list[int]]:
    """Indexes of ``costs`` in two groups of about equal total, the largest placed first (fixed by the
    costs alone)."""
    groups: tuple[list[int], list[int]] = ([], [])
    load = [0, 0]
    for index in sorted(range(len(costs)), key=lambda index: (-costs[index], index)):
        side = 0 if load[0] <= load[1] else 1
        groups[side].append(index)
        load[side] += costs[index]
    return groups


@cache
def _openblas_thread_setters() -> tuple[Callable[[int], int], ...]:
    """``openblas_set_num_threads_local`` of every OpenBLAS this process has loaded (numpy and scipy
    bundle one each); empty where there is none to be found (then nothing is changed)."""
    setters: list[Callable[[int], int]] = []
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line and ".so" in line}
        for path in sorted(paths):
            setter = ctypes.CDLL(path).openblas_set_num_threads_local
            setter.restype = ctypes.c_int
            setter.argtypes = [ctypes.c_int]
            setters.append(setter)
    except (OSError, AttributeError):
        return ()
    return tuple(setters)


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """BLAS on the calling thread only, for the duration (thread-local, restored afterwards). The
    ladder's matrices (a thousand bots) factor as fast on one thread, and on a busy machine OpenBLAS's
    worker threads spin against the rest of the work: a factorisation took 5-10 times longer."""
    setters = _openblas_thread_setters()
    previous = [setter(1) for setter in setters]
    try:
        yield
    finally:
        for setter, value in zip(setters, previous, strict=True):
            setter(value)
