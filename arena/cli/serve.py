"""``arena serve``: the web app, with the scheduler service on the embedded default."""

from __future__ import annotations

import argparse
import threading
import webbrowser

import uvicorn

from arena.cli.args import positive, whole_number, with_store
from arena.cli.executors import checked_broker_url
from arena.cli.services import current_user, open_store, uses_store
from arena.store.db import data_home
from arena.web.app import create_app
from arena.web.settings import Settings


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
    parser.set_defaults(handler=uses_store(cmd_serve))


def cmd_serve(args: argparse.Namespace) -> int:
    if args.executor == "celery":
        checked_broker_url()
    store = open_store(args)
    if store.url.startswith("sqlite"):
        current_user(store, args)  # the embedded default's local admin exists from the start
    settings = Settings(
        store_url=store.url,
        home=data_home(),
        executor=args.executor,
        workers=args.workers,
        secure_cookies=args.secure_cookies,
        ladder=not args.no_ladder,
    )
    base = f"http://{args.host}:{args.port}"
    print(f"Card Arena on {base}/  (ladders: {base}/ladder/GAME, API docs: {base}/api/docs); Ctrl-C stops it")
    if args.open:
        target = base + (args.open if args.open.startswith("/") else "/" + args.open)
        print(f"opening {target}")
        threading.Timer(1.0, webbrowser.open, (target,)).start()
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning")
    return 0
