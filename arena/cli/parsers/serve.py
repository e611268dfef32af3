"""The arguments of ``arena serve``; what they do is ``arena.cli.serve``."""

from __future__ import annotations

import argparse

from arena.cli.args import later, positive, whole_number, with_store


def register(name: str, parser: argparse.ArgumentParser) -> None:
    with_store(parser)
    parser.description = "Serves http://HOST:PORT/ (API docs at /api/docs, OpenAPI at /api/openapi.json)."
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=whole_number(1, 65535), default=8000)
    parser.add_argument(
        "--executor",
        choices=["local", "celery"],
        default="local",
        help="local (default): the web app schedules matches on a local process pool; celery: an "
        "`arena scheduler --executor celery` service sends them to the Celery workers",
    )
    parser.add_argument("--workers", type=positive, help="local match processes (default: one per core)")
    parser.add_argument(
        "--no-ladder",
        action="store_true",
        help="local: play tournaments only (by default the server also plays the living ladder)",
    )
    parser.add_argument("--secure-cookies", action="store_true", help="send cookies over HTTPS only")
    parser.add_argument(
        "--open", metavar="PATH", help="open this page in a browser once serving, e.g. /ladder/edible"
    )
    parser.set_defaults(handler=later("serve", "cmd_serve"))
