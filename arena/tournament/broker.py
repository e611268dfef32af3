"""The coordinator's side of the Celery broker: the app's configuration, and sending match tasks by name.

The workers (``workers.app``) run the task on the same app; the arena only sends it. The broker is
Redis (``$ARENA_BROKER_URL``, default ``redis://127.0.0.1:6379/0``); there is no result backend, the
store is the record. A task carries a match id and nothing else.
"""

from __future__ import annotations

import json
import os
from base64 import b64decode
from typing import Any
from urllib.parse import urlsplit

import redis
from celery import Celery
from kombu.pidbox import Mailbox

QUEUE = "matches"
TASK = "arena.run_match"
"""The name of the workers' one task: run the match whose id it carries."""


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


def where(url: str) -> str:
    """A broker URL without its credentials, fit for a message or a log."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}{parts.path}"


def _match_of(envelope: Any) -> int | None:
    """The match id of a task message (kombu's JSON envelope), if it is one of ours."""
    try:
        if envelope["headers"]["task"] != TASK:
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
            app.send_task(TASK, (match_id,), connection=self._connected(), retry=False)
        except Exception:  # out of reach: reconnect on the next call
            self._drop()
            return False
        return True

    def held_matches(self) -> set[int] | None:
        """The matches whose tasks the broker holds (queued, or taken by a worker and not yet
        acknowledged); ``None`` if it cannot tell."""
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
