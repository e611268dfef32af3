"""A deadline set again at every decision on one event-loop timer.

``asyncio.timeout`` (or ``wait_for``) schedules a timer and an object for every call it bounds
and cancels the timer when the call returns, so the loop's heap of timers fills with cancelled
ones. Decisions come by the thousand, each with a deadline seconds away and each answered long
before it: an ``Alarm`` keeps one timer and, when a decision's deadline is no earlier than the
timer, only moves the deadline. When the timer fires before the deadline it is set again at the
deadline; at the deadline (or later: it never rings early) it rings, unless it was cleared.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class Alarm:
    """Calls ``ring`` once the deadline last ``set`` is reached, unless ``clear`` came first."""

    def __init__(self, ring: Callable[[], None]) -> None:
        self._ring = ring
        self._loop = asyncio.get_running_loop()
        self._deadline: float | None = None
        self._timer: asyncio.Handle | None = None
        self._timer_at = 0.0
        """When the timer is set to go off: kept here, as uvloop hands a timer due at once back as
        a plain ``Handle``, which cannot tell."""

    def set(self, seconds: float) -> None:
        """Ring ``seconds`` from now (a deadline set before is replaced)."""
        deadline = self._deadline = self._loop.time() + seconds
        timer = self._timer
        if timer is None or self._timer_at > deadline:
            if timer is not None:
                timer.cancel()
            self._start(deadline)

    def _start(self, at: float) -> None:
        self._timer_at = at
        self._timer = self._loop.call_at(at, self._fire)

    def clear(self) -> None:
        """Do not ring (the timer stays, to serve the next deadline)."""
        self._deadline = None

    def close(self) -> None:
        """Clear, and drop the timer."""
        self._deadline = None
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _fire(self) -> None:
        assert self._timer is not None  # ``close`` cancels the timer it drops
        self._timer = None
        deadline = self._deadline
        if deadline is None:
            return
        if deadline > self._timer_at:
            self._start(deadline)
            return
        self._deadline = None
        self._ring()
