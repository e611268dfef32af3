"""Riding out a database outage: a unit of work tried again, with backoff, while the store is away.

The store is out of reach in a restart, a failover or a network cut; the work is tried again for up
to ``PATIENCE_S``. Any other error, and an outage that outlasts it, is raised as it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from arena.text import clip

T = TypeVar("T")

PATIENCE_S = 300.0
"""How long a worker or coordinator waits for the database to come back."""
MAX_DELAY_S = 10.0


def out_of_reach(error: DBAPIError) -> bool:
    """Whether ``error`` says the database cannot be reached (rather than refusing the work)."""
    return isinstance(error, OperationalError | InterfaceError) or error.connection_invalidated


def ride_out(
    work: Callable[[], T], on_wait: Callable[[str], None] | None = None, patience_s: float = PATIENCE_S
) -> T:
    """``work()`` (a transaction of its own), run again while the database is out of reach."""
    delay = 0.5
    gives_up = time.monotonic() + patience_s
    while True:
        try:
            return work()
        except DBAPIError as error:
            if not out_of_reach(error) or time.monotonic() + delay > gives_up:
                raise
            if on_wait is not None:
                reason = clip(" ".join(str(error.orig).split()), 160)
                on_wait(f"the database is out of reach ({reason}); trying again")
            time.sleep(delay)
            delay = min(2 * delay, MAX_DELAY_S)
