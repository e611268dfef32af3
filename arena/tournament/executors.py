"""Where the scheduler sends matches: a local process pool (the embedded default) or Celery
workers (``workers/``). Both end in ``arena.tournament.play.run_match``.

An executor says how many more matches it takes now (``room``), takes one (``send``), and says
which of the matches it was given it still has (``has``). The scheduler decides which match goes
next; an executor holds few matches ahead of time, so that the choice stays the scheduler's.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from multiprocessing import get_context
from typing import Protocol

from arena.tournament.broker import Broker
from arena.tournament.play import get_ready, run_match, worker_name

log = logging.getLogger(__name__)

LOST_AFTER_S = 5.0
"""How long a sent match may wait unclaimed before the scheduler asks the broker whether it still
holds its task."""
MISSING_S = 1.0
"""How long a sent match's task must stay missing from the broker to count as lost: a worker taking
it is, for a moment, holding it where the broker does not show it (out of the queue, not yet among
the unacknowledged), longer on a busy machine."""


class Executor(Protocol):
    where: str
    """Where matches go, for messages (no credentials)."""
    worker: str | None
    """The name this process's own pool claims matches under (given back when it stops)."""

    def room(self, pending: set[int]) -> int:
        """How many more matches to send now; ``pending`` are the matches the store has pending."""
        ...

    def has(self, match_id: int) -> bool:
        """Whether a match sent earlier is still in the executor's hands (queued or playing)."""
        ...

    def send(self, match_id: int) -> bool:
        """Hand a match over; False when the executor cannot be reached (try again later)."""
        ...

    def problem(self) -> str | None:
        """What keeps matches from running; asked when none has run for a while."""
        ...

    def stop(self) -> None:
        """Stop at once (Ctrl-C): matches being played end, and are given back by the caller."""
        ...

    def close(self) -> None: ...


class Slots:
    """Places for matches on this machine, shared by the local pool and whatever else plays matches
    here (``arena serve``'s validations), so that together they play at most ``size`` at a time."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._used = 0
        self._changed = threading.Condition()

    def free(self) -> int:
        with self._changed:
            return self.size - self._used

    def try_take(self) -> bool:
        with self._changed:
            if self._used >= self.size:
                return False
            self._used += 1
            return True

    def give(self) -> None:
        with self._changed:
            self._used -= 1
            self._changed.notify()

    @contextmanager
    def held(self) -> Iterator[None]:
        """A place for the block, waiting for one if none is free."""
        with self._changed:
            self._changed.wait_for(lambda: self._used < self.size)
            self._used += 1
        try:
            yield
        finally:
            self.give()


def _worker_started() -> None:
    """A local pool's process, at its start: SIGINT is the scheduler's, then ready its first match."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    get_ready()


class LocalPool:
    """Processes of this machine, each playing one match at a time, in the places of ``slots``
    (its own, of ``workers``, unless shared). Its processes leave SIGINT to the scheduler, which
    stops them (``stop``)."""

    def __init__(self, url: str, workers: int | None = None, slots: Slots | None = None) -> None:
        self.url = url
        self.size = workers or os.cpu_count() or 1
        self.slots = slots or Slots(self.size)
        self.worker: str | None = f"{worker_name()}/local"
        self.where = f"{self.size} local processes"
        self._pool: ProcessPoolExecutor | None = None
        self._playing: dict[int, Future[str]] = {}

    def room(self, pending: set[int]) -> int:
        for match_id, future in list(self._playing.items()):
            if future.done():
                del self._playing[match_id]
                error = future.exception()
                if isinstance(error, BrokenProcessPool):
                    log.warning(
                        "match %d: a process of the local pool ended abruptly (killed, or out of "
                        "memory); the match runs again once its lease runs out",
                        match_id,
                    )
                    self._discard_pool()
                elif error is not None:  # a fault of ours: its lease runs out
                    log.error("match %d: %s", match_id, error, exc_info=error)
        return min(self.size - len(self._playing), self.slots.free())

    def has(self, match_id: int) -> bool:
        return match_id in self._playing

    def send(self, match_id: int) -> bool:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                max_workers=self.size,
                mp_context=get_context("spawn"),
                initializer=_worker_started,
            )
        if not self.slots.try_take():
            return True  # a validation took the place meanwhile: still pending, sent again next step
        try:
            future = self._pool.submit(run_match, match_id, self.url, self.worker)
        except BrokenProcessPool:  # one of its processes died since the last look: the next send starts anew
            self.slots.give()
            self._discard_pool()
            return True
        future.add_done_callback(lambda _: self.slots.give())
        self._playing[match_id] = future
        return True

    def _discard_pool(self) -> None:
        """A pool one of whose processes died is broken for good (it has ended the others, and
        their matches with them): the next send starts a new one."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def problem(self) -> str | None:
        return None

    def stop(self) -> None:
        """End the pool at once: drop the matches not started and end its processes (their
        sandboxed bots with them)."""
        if self._pool is None:
            return
        processes = multiprocessing.active_children()  # the pool's: this process starts no other
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        for process in processes:
            process.join()
        self._pool, self._playing = None, {}

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


class CeleryWorkers:
    """Celery workers behind the broker. A sent match stays in hand until a worker claims it (its
    lease covers it from then on), or until the broker is found no longer to hold its task (a
    broker restarted without persistence): then it is sent again, and only then."""

    def __init__(self, queue_ahead: int) -> None:
        """``queue_ahead``: how many matches may wait in the broker's queue; few, so that the
        order they run in is the scheduler's (fair between tournaments), not the queue's."""
        self.broker = Broker()
        self.where = f"the broker at {self.broker.where}"
        self.queue_ahead = queue_ahead
        self.worker: str | None = None
        self._sent: dict[int, float] | None = None
        """When each match still waiting for a worker was sent."""
        self._missing: dict[int, float] = {}
        """When each of those was first found missing from the broker."""

    def _waiting(self) -> dict[int, float]:
        if self._sent is None:
            # What an earlier scheduler sent and the broker still holds is in hand already.
            held = self.broker.held_matches()
            self._sent = dict.fromkeys(held or (), time.monotonic())
        return self._sent

    def room(self, pending: set[int]) -> int:
        sent = self._waiting()
        for match_id in [match_id for match_id in sent if match_id not in pending]:
            del sent[match_id]  # claimed by a worker, or finished
            self._missing.pop(match_id, None)
        now = time.monotonic()
        if any(now - when > LOST_AFTER_S for when in sent.values()):
            held = self.broker.held_matches()
            if held is not None:
                for match_id in list(sent):
                    if match_id in held:
                        self._missing.pop(match_id, None)
                    elif now - self._missing.setdefault(match_id, now) >= MISSING_S:
                        del sent[match_id]  # lost: it is sent again
                        del self._missing[match_id]
        return self.queue_ahead - len(sent)

    def has(self, match_id: int) -> bool:
        return match_id in self._waiting()

    def send(self, match_id: int) -> bool:
        if not self.broker.send(match_id):
            return False
        self._waiting()[match_id] = time.monotonic()
        return True

    def problem(self) -> str | None:
        if self._sent and not self.broker.workers_answer():
            return f"no worker answers on {self.where}: start one (`arena worker`)"
        return None

    def stop(self) -> None:
        """Matches already queued stay with the workers."""

    def close(self) -> None:
        self.broker.close()
