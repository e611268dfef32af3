"""The Celery application: one thin task that runs a match by id.

The broker is Redis (``$ARENA_BROKER_URL``, default ``redis://127.0.0.1:6379/0``); there is no
result backend, the store is the record. Tasks are acknowledged late and rejected when their
worker is lost, so a killed worker's match is delivered again; the store's atomic claim and
the one-transaction result write make a second delivery harmless. Infrastructure faults are
retried a bounded number of times and never counted against the bots.
"""

from __future__ import annotations

import os

from celery import Celery, Task

from arena.store.models import MatchStatus
from arena.tournament.execute import MAX_ATTEMPTS, run_match


def broker_url() -> str:
    """``$ARENA_BROKER_URL``, read when used (default: the local Redis)."""
    return os.environ.get("ARENA_BROKER_URL", "redis://127.0.0.1:6379/0")


app = Celery("card_arena", broker=broker_url())
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_default_queue="matches",
    task_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
    broker_transport_options={"visibility_timeout": 3600},
    worker_hijack_root_logger=False,
)


@app.task(name="arena.run_match", bind=True, max_retries=MAX_ATTEMPTS)  # type: ignore[untyped-decorator]
def run_match_task(self: Task, match_id: int, url: str) -> str:
    status = run_match(match_id, url)
    if status == MatchStatus.PENDING:  # released after an infrastructure fault: try again soon
        raise self.retry(countdown=2)
    return status
