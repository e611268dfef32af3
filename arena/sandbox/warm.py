"""Sandboxes started ahead: a bot's interpreter is ready, SDK imported, before a match needs it.

The bubblewrap backend keeps a few sandboxes *prepared* (slot uid, limits, cgroups, and a Python
interpreter with the SDK imported, forked by the zygote); a match takes one per seat and hands it the
bot, and each serves exactly one bot process before it is killed with its slot. One pool per process
keeps as many ready as the most the process has had in use at once, and refills in a background
thread that lives as long as the process. A change of limits empties it.

Why: docs/sandbox.md.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing.util
import subprocess
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from arena.sandbox import cpus
from arena.sandbox.base import Started

MAX_READY = 8
"""The most sandboxes kept ready (a believe table has 8 seats)."""


@dataclass
class Prepared:
    """A started sandbox whose bot process waits on ``job`` for the bot to run."""

    started: Started
    job: int
    """The write end of the launcher's job pipe."""
    uid: int
    lock: IO[str]
    """The slot uid's lock, held while anything may run as that uid."""
    code: Path
    """The host folder the bot sees at ``/bot``, empty until the bot's code is copied in."""
    door: Path
    """The host folder the bot sees at ``/arena``, where the match's socket is linked."""
    holder: subprocess.Popen[bytes]
    """What keeps the sandbox's namespaces alive (bubblewrap, and its holder inside)."""


Prepare = Callable[[], Prepared]
Discard = Callable[[Prepared], None]


class WarmPool:
    """Prepared sandboxes of one kind (``key``: the backend's limits and walls), refilled in the
    background."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._ready: list[Prepared] = []
        self._key: Hashable = None
        self._prepare: Prepare | None = None
        self._discard: Discard | None = None
        self._in_use = 0
        self._wanted = 0
        self._thread: threading.Thread | None = None
        self.served = 0
        """How many takes found a sandbox ready."""

    def take(self, key: Hashable, prepare: Prepare, discard: Discard) -> Prepared | None:
        """A ready sandbox of kind ``key``, or ``None`` (the caller prepares one itself). Either
        way the pool learns one more is in use, and refills towards that."""
        taken = None
        with self._lock:
            stale = self._kind(key, prepare, discard)
            while self._ready and taken is None:
                candidate = self._ready.pop(0)
                if candidate.started.process.poll() is None:
                    taken = candidate
                else:
                    stale.append(candidate)
            self._in_use += 1
            self.served += taken is not None
            self._want(self._in_use)
        for prepared in stale:
            discard(prepared)
        return taken

    def expect(self, key: Hashable, prepare: Prepare, discard: Discard, count: int) -> None:
        """Keep at least ``count`` sandboxes of kind ``key`` ready from now on: an executor's
        process, before its first match, for the seats it will play (``count`` per match, as it
        plays one at a time)."""
        with self._lock:
            stale = self._kind(key, prepare, discard)
            self._want(count)
        for prepared in stale:
            discard(prepared)

    def wait_ready(self, count: int, timeout_s: float) -> bool:
        """Wait until ``count`` sandboxes are ready, for at most ``timeout_s``, or until preparing
        one failed (the pool then stops refilling until the next take)."""
        with self._lock:
            self._lock.wait_for(lambda: len(self._ready) >= count or self._wanted < count, timeout_s)
            return len(self._ready) >= count

    def _kind(self, key: Hashable, prepare: Prepare, discard: Discard) -> list[Prepared]:
        """Serve sandboxes of kind ``key`` from now on; the ready ones of another kind, to discard."""
        stale: list[Prepared] = []
        if key != self._key:
            stale, self._ready = self._ready, []
            self._key, self._wanted = key, 0
        self._prepare, self._discard = prepare, discard
        return stale

    def _want(self, count: int) -> None:
        self._wanted = min(MAX_READY, max(self._wanted, count))
        if self._thread is None:
            self._thread = threading.Thread(target=self._refill, name="arena-warm-pool", daemon=True)
            self._thread.start()
        self._lock.notify_all()

    def done(self) -> None:
        """One taken sandbox is released."""
        with self._lock:
            self._in_use = max(0, self._in_use - 1)

    def close(self) -> None:
        """Kill the ready sandboxes and give their slots back (at the process's exit)."""
        with self._lock:
            ready, self._ready = self._ready, []
            self._key, self._prepare, self._wanted = None, None, 0  # one being prepared is discarded
            discard = self._discard
        for prepared in ready:
            if discard is not None:
                with contextlib.suppress(Exception):
                    discard(prepared)

    def ready(self) -> int:
        with self._lock:
            return len(self._ready)

    def _refill(self) -> None:
        while True:
            with self._lock:
                while len(self._ready) >= self._wanted or self._prepare is None:
                    self._lock.wait()
                key, prepare, discard = self._key, self._prepare, self._discard
            cpus.everywhere()  # this process may keep to one CPU, its matches' (and their bots')
            try:
                prepared = prepare()
            except Exception:  # the next take prepares its own and shows the error
                with self._lock:
                    self._wanted = 0
                    self._lock.notify_all()  # wait_ready: none is coming
                continue
            with self._lock:
                if key == self._key:
                    self._ready.append(prepared)
                    self._lock.notify_all()  # wait_ready
                    continue
            if discard is not None:
                with contextlib.suppress(Exception):
                    discard(prepared)


POOL = WarmPool()
"""This process's pool."""
atexit.register(POOL.close)
# A multiprocessing worker (the local tournament pool) exits without atexit, after these.
multiprocessing.util.Finalize(POOL, POOL.close, exitpriority=100)
