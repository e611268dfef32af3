"""The Celery application: one thin task that runs a match by id.

The broker is Redis (``$ARENA_BROKER_URL``, default ``redis://127.0.0.1:6379/0``); there is no
result backend, the store is the record. A task carries a match id and nothing else: each
worker reaches the store through its own configuration (``$ARENA_DATABASE_URL``), so no
password travels through the broker. Tasks are acknowledged late and rejected when their worker
is lost; the store's atomic claim and the one-transaction result write make a second delivery
harmless. Infrastructure faults are retried a bounded number of times and never counted against
the bots.
"""

from __future__ import annotations

import json
import os
from base64 import b64decode
from typing import Any
from urllib.parse import urlsplit

from celery import Celery, Task
from celery.signals import worker_process_init
from kombu.pidbox import Mailbox

from arena.store.models import MatchStatus
from arena.tournament.play import MAX_ATTEMPTS, get_ready, run_match

QUEUE = "matches"


def broker_url() -> str:
    """``$ARENA_BROKER_URL``, read when used (default: the local Redis)."""
    return os.environ.get("ARENA_BROKER_URL", "redis://127.0.0.1:6379/0")


app = Celery("card_arena", broker=broker_url())
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_default_queue=QUEUE,
    task_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
    broker_transport_options={"visibility_timeout": 3600},
    worker_hijack_root_logger=False,
)


@app.task(name="arena.run_match", bind=True, max_retries=MAX_ATTEMPTS)  # type: ignore[untyped-decorator]
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


def where(url: str) -> str:
    """A broker URL without its credentials, fit for a message or a log."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"


def _match_of(envelope: Any) -> int | None:
    """The match id of a task message (kombu's JSON envelope), if it is one of ours."""
    try:
        if envelope["headers"]["task"] != run_match_task.name:
            return None
        args = json.loads(b64decode(envelope["body"]))[0]
        return int(args[0])
    except (ValueError, KeyError, IndexError, TypeError):
        return None


class Broker:
    """The coordinator's side of the broker: sends match tasks, sees which ones it still holds,
    and asks whether any worker is there. Every call answers (``False``, ``None``) rather than
    raise while the broker is out of reach."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or broker_url()
        self.where = where(self.url)
        self._connection: Any = None

    def _connected(self) -> Any:
        if self._connection is None:
            self._connection = app.connection_for_write(self.url)
        return self._connection

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.release()
        self._connection = None

    def send(self, match_id: int) -> bool:
        try:
            run_match_task.apply_async((match_id,), connection=self._connected(), retry=False)
        except Exception:  # out of reach: reconnect on the next call
            self._drop()
            return False
        return True

    def held_matches(self) -> set[int] | None:
        """The matches whose tasks the broker holds (queued, or taken by a worker and not yet
        acknowledged); ``None`` if it cannot tell."""
        import redis

        try:
            client: Any = redis.Redis.from_url(self.url, socket_timeout=2)
            try:
                # Queued messages are envelopes; unacknowledged ones, [envelope, exchange, routing key].
                envelopes = [json.loads(message) for message in client.lrange(QUEUE, 0, -1)]
                envelopes += [json.loads(value)[0] for value in client.hvals("unacked")]
            finally:
                client.close()
        except (redis.RedisError, ValueError, IndexError, TypeError):
            return None
        return {match_id for envelope in envelopes if (match_id := _match_of(envelope)) is not None}

    def workers_answer(self) -> bool:
        # Celery's own ``control.ping`` sends through the app's default broker; this asks on ours.
        mailbox = Mailbox("celery", type="fanout", accept=["json"])  # type: ignore[no-untyped-call]
        try:
            return bool(mailbox(self._connected())._broadcast("ping", {}, reply=True, timeout=1.0))
        except Exception:
            self._drop()
            return False

    def close(self) -> None:
        self._drop()
