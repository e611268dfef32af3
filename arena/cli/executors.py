"""Where the command line plays matches: the executor a command asks for, and the broker behind it."""

from __future__ import annotations

import argparse

from kombu.transport import TRANSPORT_ALIASES

from arena.cli.args import UsageError
from arena.store.db import Store
from arena.tournament.broker import broker_url
from arena.tournament.executors import CeleryWorkers, Executor, LocalPool


def checked_broker_url() -> str:
    """``$ARENA_BROKER_URL`` (default: the local Redis), refused at once unless its scheme names a
    broker transport (a mistyped one would fail deep in Celery, or keep the coordinator waiting);
    the message shows the scheme only, never a password in the URL."""
    url = broker_url()
    scheme, separator, _ = url.partition("://")
    if not separator or scheme not in TRANSPORT_ALIASES:
        named = f"an unknown scheme {scheme!r}" if separator else "no scheme"
        raise UsageError(f"ARENA_BROKER_URL has {named}: the broker is Redis, redis://HOST:6379/0")
    return url


def executor_for(args: argparse.Namespace, store: Store) -> Executor:
    if args.executor == "celery":
        checked_broker_url()
        return CeleryWorkers(args.queue_ahead)
    return LocalPool(store.url, args.workers)


def interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
