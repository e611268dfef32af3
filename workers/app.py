"""The Celery application: one thin task that runs a match by id.

The app and its broker are configured in ``arena.tournament.broker``, the side that sends the
tasks; each worker reaches the store through its own configuration (``$ARENA_DATABASE_URL``), so no
password travels through the broker. Tasks are acknowledged late and rejected when their worker is
lost; the store's atomic claim and the one-transaction result write make a second delivery
harmless. Infrastructure faults are retried a bounded number of times and never counted against
the bots.
"""

from __future__ import annotations

from typing import Any

from celery import Task
from celery.signals import worker_process_init

from arena.store.models import MatchStatus
from arena.tournament.broker import TASK, app
from arena.tournament.play import MAX_ATTEMPTS, get_ready, run_match

__all__ = ["app"]


@app.task(name=TASK, bind=True, max_retries=MAX_ATTEMPTS)  # type: ignore[untyped-decorator]
def run_match_task(self: Task, match_id: int) -> str:
    status = run_match(match_id)
    if status == MatchStatus.PENDING:  # released after an infrastructure fault: try again soon
        raise self.retry(countdown=2)
    return status


@worker_process_init.connect  # type: ignore[untyped-decorator]
def _worker_process_started(**_: Any) -> None:
    """Each process of the worker's pool readies its first match: imports, and sandboxes prepared
    in the background (Celery gives a process's start 4 s, so it does not wait for them)."""
    get_ready(wait_s=0)
