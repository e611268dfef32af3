"""``arena worker``: a Celery worker that plays the matches the scheduler sends (its broker:
``$ARENA_BROKER_URL``)."""

from __future__ import annotations

import argparse
import os

from arena.cli.executors import checked_broker_url
from workers.app import app


def cmd_worker(args: argparse.Namespace) -> int:
    checked_broker_url()
    argv = ["worker", "--loglevel", args.loglevel, "--concurrency", str(args.concurrency), "-Q", "matches"]
    if args.hostname:
        os.environ["ARENA_WORKER_NAME"] = args.hostname  # its pool processes inherit it
        argv += ["--hostname", f"{args.hostname}@%h"]
    app.worker_main(argv)
    return 0
