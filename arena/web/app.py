"""The web app: server-rendered pages and a JSON API (OpenAPI at ``/api/openapi.json``) over the store.

``arena serve`` runs it with uvicorn; ``create_app`` puts it together. Its routes: ``arena.web.api``,
``arena.web.pages``, ``arena.web.ladder_pages`` and ``arena.web.account_pages``; what they depend on:
``arena.web.deps``; errors: ``arena.web.errors``. Pages and API read the same models
(``arena.web.views``). A browser is known by its session cookie, the API by ``Authorization: Bearer
<API token>``; forms that change anything carry the session's CSRF token, and the API's writes take
the bearer token only. On the embedded default the app runs the scheduler service itself; no request
waits on a bot.

Who may do what, and why: docs/web.md.
"""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool

from arena.ladder.feeder import Feeder
from arena.ratings.ladder import refit
from arena.ratings.rated import is_rated
from arena.store.db import Store
from arena.store.models import Tournament
from arena.tournament.executors import LocalPool, Slots
from arena.tournament.scheduler import Scheduler
from arena.tournament.service import pending_validations
from arena.web import account_pages, api, errors, ladder_pages, pages, play, tables
from arena.web.actions import Actions
from arena.web.body_limit import BodyLimit
from arena.web.caches import Ladders
from arena.web.headers import SecurityHeaders
from arena.web.playing import Tables
from arena.web.settings import Settings
from arena.web.throttle import Throttle


def create_app(settings: Settings) -> FastAPI:
    store = Store(settings.store_url)
    if store.url.startswith("sqlite"):
        store.upgrade()
    validations = ThreadPoolExecutor(settings.validations, thread_name_prefix="arena-validation")
    # local: validation matches take places of the scheduler's pool, --workers matches in all
    slots = Slots(settings.workers or os.cpu_count() or 1) if settings.executor == "local" else None
    actions = Actions(store, settings.home, validations, slots)

    def refit_finished(tournament_id: int) -> None:
        with store.session() as session:
            tournament = session.get_one(Tournament, tournament_id)
            if is_rated(tournament):  # an unrated one moves no ladder
                refit(store.engine, session, tournament.game)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        for registered in await run_in_threadpool(pending_validations, store, settings.home):
            actions.validate_later(registered)
        stop = threading.Event()
        scheduling = None
        if settings.executor == "local":  # the embedded default: no scheduler service runs elsewhere
            scheduler = Scheduler(
                store,
                LocalPool(store.url, settings.workers, slots),
                on_done=refit_finished,
                ladder=Feeder(store) if settings.ladder else None,
            )
            scheduling = threading.Thread(target=scheduler.run, args=(stop,), name="arena-scheduler")
            scheduling.start()
        yield
        validations.shutdown(wait=False, cancel_futures=True)  # unfinished ones run again next start
        stop.set()
        if scheduling is not None:
            await run_in_threadpool(scheduling.join)  # the matches it was playing are pending again

    app = FastAPI(
        lifespan=lifespan,
        title="Card Arena",
        summary="Bot tournaments and Elo ladders for Believe, Edible and Kozel",
        openapi_url="/api/openapi.json",
        docs_url=None,  # /api/docs (arena.web.pages): made from the spec here, no assets from elsewhere
        redoc_url=None,
        exception_handlers=errors.HANDLERS,
    )
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders)  # outermost: on every response, a 413 included
    app.mount(tables.PREFIX, tables.GameTables(), name="tables")  # before /static, which holds it
    app.mount("/static", StaticFiles(packages=[("arena.web", "static")]), name="static")
    app.state.settings = settings
    app.state.store = store
    app.state.throttle = Throttle()
    app.state.ladders = Ladders(store)
    app.state.actions = actions
    app.state.tables = Tables(store)
    for routes in (api, pages, ladder_pages, account_pages, play):
        app.include_router(routes.router)
    return app
