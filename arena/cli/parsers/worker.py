"""The arguments of ``arena worker``; what they do is ``arena.cli.worker``."""

from __future__ import annotations

import argparse
import os

from arena.cli.args import later, positive


def register(name: str, parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--concurrency", type=positive, default=os.cpu_count() or 1)
    parser.add_argument("--loglevel", default="INFO")
    parser.add_argument(
        "--hostname",
        help="this worker's name, in Celery's tools and on the matches it plays "
        "(default: the machine's; give each worker on one machine its own)",
    )
    parser.set_defaults(handler=later("worker", "cmd_worker"))
