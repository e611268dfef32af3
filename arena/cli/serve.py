"""``arena serve``: the web app, with the scheduler service on the embedded default."""

from __future__ import annotations

import argparse
import threading
import webbrowser

import uvicorn

from arena.cli.executors import checked_broker_url
from arena.cli.services import current_user, open_store, uses_store
from arena.store.db import data_home
from arena.web.app import create_app
from arena.web.settings import Settings


@uses_store
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
