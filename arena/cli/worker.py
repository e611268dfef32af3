"""``arena worker``: a Celery worker that plays the matches the scheduler sends (its broker:
``$ARENA_BROKER_URL``)."""

from __future__ import annotations

import argparse
import os

from arena.cli.args import positive
from arena.cli.executors import checked_broker_url
from workers.app import app


def register(name: str, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--concurrency", type=positive, default=os.cpu_count() or 1)
    parser.add_argument("--loglevel", default="INFO")
    parser.add_argument(
        "--hostname",
        help="this worker's name, in Celery's tools and on the matches it plays "
        "(default: the machine's; give each worker on one machine its own)",
    )
    parser.set_defaults(handler=cmd_worker)


def cmd_worker(args: argparse.Namespace) -> int:
    checked_broker_url()
    argv = ["worker", "--loglevel", args.loglevel, "--concurrency", str(args.concurrency), "-Q", "matches"]
    if args.hostname:
        os.environ["ARENA_WORKER_NAME"] = args.hostname  # its pool processes inherit it
        argv += ["--hostname", f"{args.hostname}@%h"]
    app.worker_main(argv)
    return 0
