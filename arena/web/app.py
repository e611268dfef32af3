"""The web app: server-rendered pages and a JSON API (OpenAPI at ``/api/openapi.json``) over the store.

``arena serve`` runs it with uvicorn. Pages and API read the same models (``arena.web.views``).
Who is asking: a browser session cookie (pages, and the API's GET requests made by the pages'
scripts) or ``Authorization: Bearer <API token>`` (the API). Forms that change anything carry the
session's CSRF token; the API's writes take the bearer token only, never the cookie, so a foreign
page cannot make a signed-in browser call them. Request bodies are capped (``max_body_bytes``).
On the embedded default the app runs the scheduler service (``arena.tournament.scheduler``), with
the living ladder unless ``Settings.ladder`` is off, on a local process pool of its own; with
``executor="celery"`` an ``arena scheduler`` service sends matches to the Celery workers and the app
only follows progress. No request waits on a bot: a submission is stored and answered at once, and
validated in the background (``Settings.validations`` at a time, and on the local executor in places
of the scheduler's pool: matches and validations together stay within ``--workers``; versions whose
validation an arena stop cut short are validated again when the app starts). A user has at most
``arena.tournament.quota.MAX_UNFINISHED`` unfinished tournaments. Log-ins and API tokens are
throttled (``arena.web.throttle``); every response carries security headers (``arena.web.headers``).
"""

from __future__ import annotations

import logging
import os
import secrets
import shutil
import tempfile
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Annotated, Any

from fastapi import Depends, FastAPI, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import BaseModel
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match as RouteMatch
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena.games.base import GameError
from arena.games.registry import get_game
from arena.ladder.feeder import Feeder
from arena.ratings.ladder import refit, revision
from arena.runner.match import GAMES_PER_MATCH
from arena.sandbox import SandboxError
from arena.store.db import Store, once_more_on_conflict
from arena.store.errors import AuthError, StoreError
from arena.store.models import Tournament, User
from arena.store.repo import authenticate, create_user
from arena.submissions import SubmissionError, SubmissionLimits
from arena.tournament import limits, quota
from arena.tournament.executors import LocalPool, Slots
from arena.tournament.scheduler import Scheduler
from arena.tournament.service import (
    Registered,
    TournamentSpec,
    create,
    pending_validations,
    register,
    validate_version,
)
from arena.web import charts, security, views
from arena.web.headers import SecurityHeaders
from arena.web.throttle import Throttle
from arena.web.tournaments import Id, Index, TournamentRequest, cancel

API = "/api/v1"
log = logging.getLogger("arena.web")
LADDER_PAGE = 100
"""Bots per ladder page (the JSON API returns the whole ladder)."""


@dataclass
class Settings:
    store_url: str
    home: Path
    """``$ARENA_HOME``: this process's own data folder, where it keeps copies of bot code and replays."""
    executor: str = "local"
    """``local``: the server runs the scheduler service on a process pool of its own; ``celery``:
    an ``arena scheduler`` service sends matches to the workers, and the server only follows."""
    workers: int | None = None
    max_body_bytes: int = SubmissionLimits().max_total_bytes + 256 * 1024
    secure_cookies: bool = False
    """Send cookies only over HTTPS (set when served behind TLS)."""
    validations: int = 2
    """Validation matches run at once, in the background."""
    ladder: bool = True
    """``local``: the server's scheduler also plays the living ladder (``arena.ladder``)."""


class BodyLimit:
    """Refuse request bodies over ``limit`` bytes with 413, by the declared length or while reading."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _too_large(self.limit, send, scope["path"])
            return
        seen = 0
        started = refused = False

        async def limited_receive() -> Message:
            nonlocal seen, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                refused = True
                if not started:
                    await _too_large(self.limit, send, scope["path"])
                return {"type": "http.disconnect"}  # the app stops reading; its own answer is dropped
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except Exception:
            if not refused:
                raise


async def _too_large(limit: int, send: Send, path: str = "/api/") -> None:
    """413, as JSON for the API and as a page (its form cannot come back: it was not read) for pages."""
    message = f"the request body is larger than the limit of {limit} bytes"
    if path.startswith("/api/"):
        body, kind = f'{{"error": "{message}"}}'.encode(), b"application/json"
    else:
        body, kind = _too_large_page(message).encode(), b"text/html; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class LadderCache:
    """The ladder as JSON and as the page's table, per game, rebuilt only when its revision moves."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], tuple[int, Any]] = {}
        self._lock = threading.Lock()

    def peek(self, kind: str, game: str, current: int) -> Any:
        """The cached value if it is of revision ``current``, else None."""
        with self._lock:
            cached = self._entries.get((kind, game))
        return cached[1] if cached is not None and cached[0] == current else None

    def get(self, kind: str, game: str, current: int, build: Callable[[], Any]) -> Any:
        value = self.peek(kind, game, current)
        if value is not None:
            return value
        value = build()
        with self._lock:
            self._entries[(kind, game)] = (current, value)
        return value


class Revisions:
    """Each game's ladder revision, read from the store at most every ``ttl`` seconds: the hot ladder
    reads then touch neither the database nor a worker thread (a ladder is at most ``ttl`` stale)."""

    def __init__(self, store: Store, ttl: float = 0.5) -> None:
        self.store, self.ttl = store, ttl
        self._seen: dict[str, tuple[float, int]] = {}

    def fresh(self, game: str) -> int | None:
        seen = self._seen.get(game)
        return seen[1] if seen is not None and time.monotonic() - seen[0] < self.ttl else None

    def load(self, game: str) -> int:
        with self.store.session() as session:
            current = revision(session, game)
        self._seen[game] = (time.monotonic(), current)
        return current

    async def current(self, game: str) -> int:
        known = self.fresh(game)
        return known if known is not None else await run_in_threadpool(self.load, game)


LadderPage = Annotated[int, Query(alias="page", ge=1)]
"""Which page of a ladder (1 the top)."""
LadderSearch = Annotated[str, Query(max_length=64, description="only bots whose name holds this")]
TournamentsPage = Annotated[int, Query(alias="page", ge=1)]
MatchesPage = Annotated[int, Query(alias="page", ge=1, description="which page of its matches, 1 the newest")]


class ErrorBody(BaseModel):
    error: str


class Viewer:
    """Who is asking, resolved once per request."""

    def __init__(self, user: User | None, csrf: str | None, via_token: bool) -> None:
        self.user, self.csrf, self.via_token = user, csrf, via_token


def db(request: Request) -> Iterator[Session]:
    store: Store = request.app.state.store
    with store.session() as session:
        yield session


# committed before the response goes out: the next request (a redirect, the next form) sees the writes
Db = Annotated[Session, Depends(db, scope="function")]


def viewer(request: Request, session: Db) -> Viewer:
    header = request.headers.get("authorization", "")
    if header:
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token:
            raise HTTPException(401, "use 'Authorization: Bearer <API token>'")
        throttle: Throttle = request.app.state.throttle
        host = request.client.host if request.client else None
        if wait := throttle.token_wait(host):
            raise HTTPException(
                429, f"too many failed attempts: try again in {wait} s", {"Retry-After": str(wait)}
            )
        try:
            return Viewer(authenticate(session, token.strip()), None, True)
        except AuthError as error:
            throttle.token_failed(host)
            raise HTTPException(401, str(error)) from None
    web = security.session_for(session, request.cookies.get(security.SESSION_COOKIE))
    return Viewer(web.user if web else None, web.csrf if web else None, False)


Who = Annotated[Viewer, Depends(viewer)]


def signed_in(who: Who) -> User:
    if who.user is None:
        raise HTTPException(401, "sign in first (in a browser, or with 'Authorization: Bearer <API token>')")
    return who.user


def token_user(who: Who) -> User:
    """API writes: the bearer token only (a cookie would let foreign pages act for the user)."""
    if who.user is None or not who.via_token:
        raise HTTPException(401, "this call needs 'Authorization: Bearer <API token>'")
    return who.user


def form_user(who: Who, csrf: Annotated[str, Form()] = "") -> User:
    """Page forms: a signed-in session that sends back its CSRF token."""
    if who.user is None:
        raise HTTPException(401, "sign in first")
    if not security.same_token(csrf, who.csrf):
        raise HTTPException(403, "the form's CSRF token is missing or stale: reload the page and retry")
    return who.user


def create_app(settings: Settings) -> FastAPI:
    store = Store(settings.store_url)
    if store.url.startswith("sqlite"):
        store.upgrade()
    templates = Environment(loader=PackageLoader("arena.web"), autoescape=select_autoescape())
    templates.globals["API"] = API
    cache = LadderCache()
    revisions = Revisions(store)
    validations = ThreadPoolExecutor(settings.validations, thread_name_prefix="arena-validation")
    # local: validation matches take places of the scheduler's pool, --workers matches in all
    slots = Slots(settings.workers or os.cpu_count() or 1) if settings.executor == "local" else None

    def validate_later(registered: Registered) -> None:
        def run() -> None:
            try:
                with slots.held() if slots is not None else nullcontext():
                    validate_version(store, registered)
            except Exception:
                log.exception("bot version %d: its validation could not run", registered.version_id)

        validations.submit(run)

    def refit_finished(tournament_id: int) -> None:
        with store.session() as session:
            refit(store.engine, session, session.get_one(Tournament, tournament_id).game)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        for registered in await run_in_threadpool(pending_validations, store, settings.home):
            validate_later(registered)
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
        docs_url=None,  # /api/docs below: made from the spec here, no assets from elsewhere
        redoc_url=None,
    )
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    app.add_middleware(SecurityHeaders)  # outermost: on every response, a 413 included
    app.mount("/static", StaticFiles(packages=[("arena.web", "static")]), name="static")
    app.state.settings = settings
    app.state.store = store
    app.state.throttle = throttle = Throttle()

    # ------------------------------------------------------------------ plumbing

    def render(template_name: str, who: Viewer | None, **context: Any) -> str:
        user = who.user if who else None
        return templates.get_template(template_name).render(
            user=user, csrf=who.csrf if who else None, **context
        )

    def page(template_name: str, who: Viewer | None, status: int = 200, **context: Any) -> HTMLResponse:
        return HTMLResponse(render(template_name, who, **context), status_code=status)

    def anonymous_form(template: str, request: Request, status: int = 200, **context: Any) -> HTMLResponse:
        token = request.cookies.get(security.ANON_CSRF_COOKIE) or secrets.token_urlsafe(24)
        response = page(template, None, status, form_csrf=token, **context)
        response.set_cookie(
            security.ANON_CSRF_COOKIE, token, httponly=True, samesite="lax", secure=settings.secure_cookies
        )
        return response

    def check_anonymous_csrf(request: Request, sent: str) -> None:
        if not security.same_token(sent, request.cookies.get(security.ANON_CSRF_COOKIE)):
            raise HTTPException(403, "the form's CSRF token is missing or stale: reload the page and retry")

    def is_api(request: Request) -> bool:
        return request.url.path.startswith("/api/")

    def error_response(
        request: Request, status: int, message: str, headers: Mapping[str, str] | None = None
    ) -> Response:
        if is_api(request):
            return JSONResponse({"error": message}, status_code=status, headers=headers)
        response = page("error.html", None, status, code=status, message=message)
        response.headers.update(headers or {})
        return response

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        headers = dict(error.headers or {})  # Retry-After on a 429
        if error.status_code == 405:  # the router names the first route's methods only
            headers["Allow"] = _allowed_methods(app, request.scope)
        return error_response(request, error.status_code, str(error.detail), headers)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'] if part not in ('body', 'query', 'path'))}: "
            f"{problem['msg']}"
            for problem in error.errors()
        )
        return error_response(request, 422, f"bad request: {problems}")

    @app.exception_handler(views.NotFound)
    async def not_found(request: Request, error: views.NotFound) -> Response:
        return error_response(request, 404, str(error))

    @app.exception_handler(views.Forbidden)
    async def forbidden(request: Request, error: views.Forbidden) -> Response:
        return error_response(request, 403, str(error))

    @app.exception_handler(StoreError)
    async def store_error(request: Request, error: StoreError) -> Response:
        return error_response(request, 400, str(error))

    @app.exception_handler(GameError)
    async def game_error(request: Request, error: GameError) -> Response:
        return error_response(request, 400, str(error))

    @app.exception_handler(SubmissionError)
    async def submission_error(request: Request, error: SubmissionError) -> Response:
        return error_response(request, 400, str(error))

    @app.exception_handler(SandboxError)
    async def sandbox_error(request: Request, error: SandboxError) -> Response:
        return error_response(
            request, 503, f"the bot sandbox is not available here ({error}): nothing was lost"
        )

    def known_game(game: str) -> str:
        try:
            return get_game(game).name
        except (KeyError, GameError):
            raise views.NotFound(f"no game {game!r}: the games are believe, edible and kozel") from None

    def cached_ladder(game: str, current: int, session: Session | None = None) -> views.Ladder:
        """The ladder model of revision ``current``, built in the calling worker thread if new: with
        the request's ``session`` if it has one (a request holding a connection while it waited for a
        second one could drain the pool when many arrive together), else with a session of its own."""

        def build() -> views.Ladder:
            if session is not None:
                return views.ladder(session, game)
            with store.session() as own:
                return views.ladder(own, game)

        return cache.get("model", game, current, build)  # type: ignore[no-any-return]

    def bot_page(session: Session, bot_id: int, who: Viewer, page_number: int) -> views.BotPage:
        """The bot's page (its matches' page ``page_number``), with its game's ladder from the cache."""
        return views.bot_page(
            session,
            bot_id,
            who.user,
            lambda game: cached_ladder(game, revision(session, game), session),
            page_number,
        )

    async def cached(kind: str, game: str, current: int, build: Callable[[], Any]) -> Any:
        """From the cache without leaving the event loop, else built in a worker thread."""
        value = cache.peek(kind, game, current)
        return value if value is not None else await run_in_threadpool(cache.get, kind, game, current, build)

    # ------------------------------------------------------------------ JSON API

    responses: dict[int | str, dict[str, Any]] = {
        400: {"model": ErrorBody},
        401: {"model": ErrorBody},
        403: {"model": ErrorBody},
        404: {"model": ErrorBody},
        422: {"model": ErrorBody},
    }

    @app.get(f"{API}/games", tags=["games"])
    def api_games() -> list[views.GameInfo]:
        """The games: seats and built-in bots."""
        return views.games()

    @app.get(
        f"{API}/ladders/{{game}}", tags=["ladders"], responses={200: {"model": views.Ladder}, **responses}
    )
    async def api_ladder(game: str) -> Response:
        """The game's ladder: the last batch fit (Elo +- 95%), bots without a fit yet by live Elo."""
        game = known_game(game)
        current = await revisions.current(game)
        body = await cached(
            "json", game, current, lambda: cached_ladder(game, current).model_dump_json().encode()
        )
        return Response(body, media_type="application/json")

    @app.get(f"{API}/ladders/{{game}}/revision", tags=["ladders"], responses=responses)
    async def api_ladder_revision(game: str) -> views.LadderRevision:
        """The game's ladder revision, bumped by every change to its ratings: a cheap check of whether
        the ladder moved since it was read (the ladder page asks every few seconds)."""
        game = known_game(game)
        return views.LadderRevision(game=game, revision=await revisions.current(game))

    @app.post(f"{API}/ladders/{{game}}/refit", tags=["ladders"], responses=responses)
    def api_refit(game: str, session: Db, user: Annotated[User, Depends(token_user)]) -> views.Ladder:
        """Admin: refit the ladder of record from every stored result now."""
        game = known_game(game)
        if not user.is_admin:
            raise HTTPException(403, "only an admin may refit a ladder")
        refit(store.engine, session, game)
        session.flush()
        return views.ladder(session, game)

    @app.get(f"{API}/bots/{{bot_id}}", tags=["bots"], responses=responses)
    def api_bot(bot_id: Id, session: Db, who: Who, page_number: MatchesPage = 1) -> views.BotPage:
        """A bot: its place on the ladder, versions with their ratings, rating history, its record
        against each other bot, and its matches, newest first, 30 a page (validation logs for its
        owner only)."""
        return bot_page(session, bot_id, who, page_number)

    @app.get(f"{API}/versions/{{version_id}}/source", tags=["bots"], responses=responses)
    def api_source(version_id: Id, session: Db, who: Who) -> views.Source:
        """A submitted version's files: its owner (and admins) only."""
        return views.source(session, version_id, who.user, settings.home)

    @app.post(f"{API}/bots", tags=["bots"], responses=responses)
    def api_submit(
        session: Db,
        user: Annotated[User, Depends(token_user)],
        game: Annotated[str, Form()],
        name: Annotated[str, Form()],
        file: Annotated[UploadFile, File(description="a .py file or a .zip")],
        entry: Annotated[str, Form()] = "",
    ) -> SubmitResult:
        """Submit a bot (a new version if the name is yours already). The reply comes at once; the
        validation match then runs in the sandbox, and the bot's ``validation`` turns from
        ``validating`` to ``passed`` (it may play) or ``failed`` (``GET /bots/{bot_id}``)."""
        return submit_upload(session, user, game, name, file, entry or None)

    @app.get(f"{API}/matches/{{match_id}}", tags=["matches"], responses=responses)
    def api_match(match_id: Id, session: Db, who: Who) -> views.MatchPage:
        """A match: status, seats with their results, every game's finish order."""
        return views.match_page(session, match_id, who.user)

    @app.get(f"{API}/matches/{{match_id}}/replay", tags=["matches"], responses=responses)
    def api_replay_file(match_id: Id, session: Db) -> Response:
        """A finished match's replay file (JSON, every game; ``arena replay show`` reads it)."""
        data = views.replay_file(session, match_id, settings.home)
        attachment = {"Content-Disposition": f'attachment; filename="match-{match_id}-replay.json"'}
        return Response(data, media_type="application/json", headers=attachment)

    @app.get(f"{API}/matches/{{match_id}}/replay/{{game_index}}", tags=["matches"], responses=responses)
    def api_replay(
        match_id: Id, game_index: Index, session: Db, seat: Annotated[int | None, Query(ge=0, le=64)] = None
    ) -> views.ReplayView:
        """Every step of one game with the whole state after it, and with ``seat`` what that seat saw,
        once the match is over; while it runs, the games finished so far in the public view only."""
        return views.replay_view(session, match_id, game_index, settings.home, seat)

    @app.get(f"{API}/matches/{{match_id}}/logs/{{agent}}", tags=["matches"], responses=responses)
    def api_log(match_id: Id, agent: Index, session: Db, who: Who) -> PlainTextResponse:
        """A seat's log (the bot's stderr): its owner (and admins) only."""
        return PlainTextResponse(views.match_log(session, match_id, agent, who.user))

    @app.get(f"{API}/tournaments", tags=["tournaments"])
    def api_tournaments(session: Db) -> list[views.TournamentLine]:
        """The 50 newest tournaments with their progress."""
        return views.tournaments(session)

    @app.get(f"{API}/tournaments/{{tournament_id}}", tags=["tournaments"], responses=responses)
    def api_tournament(tournament_id: Id, session: Db) -> views.TournamentPage:
        """A tournament: progress, standings and its matches."""
        return views.tournament_page(session, tournament_id)

    @app.post(f"{API}/tournaments", tags=["tournaments"], responses=responses)
    def api_create_tournament(
        request: TournamentRequest, session: Db, user: Annotated[User, Depends(token_user)]
    ) -> views.TournamentLine:
        """Create a tournament and start running it."""
        tournament_id = start_tournament(session, TournamentSpec(**request.model_dump()), user)
        with store.session() as own:
            return views.tournament_page(own, tournament_id)

    @app.post(
        f"{API}/tournaments/{{tournament_id}}/cancel",
        tags=["tournaments"],
        responses={**responses, 409: {"model": ErrorBody, "description": "finished, or a ladder's"}},
    )
    def api_cancel_tournament(
        tournament_id: Id, session: Db, user: Annotated[User, Depends(token_user)]
    ) -> views.TournamentPage:
        """Cancel a tournament (its creator or an admin): every match of it not yet done, pending,
        running or failed, is void at once and never played or counted; done matches stay."""
        cancel(session, tournament_id, user)
        session.flush()
        return views.tournament_page(session, tournament_id)

    @app.get(f"{API}/me", tags=["users"], responses=responses)
    def api_me(session: Db, user: Annotated[User, Depends(signed_in)]) -> views.Me:
        """Who you are (by token or browser session) and your bots."""
        return views.me(session, user)

    # ------------------------------------------------------------------ actions shared by both

    def release(session: Session) -> None:
        """Ends the request's transaction, returning its connection to the pool, before work that
        opens sessions of its own: requests holding a connection while they wait for another drained
        the pool when many came at once (and all failed after 30 s)."""
        session.commit()

    def submit_upload(
        session: Session, user: User, game: str, name: str, upload: UploadFile, entry: str | None
    ) -> SubmitResult:
        release(session)
        filename = PurePath((upload.filename or "").replace("\\", "/")).name
        if not filename.endswith((".py", ".zip")):
            raise HTTPException(400, f"{filename or 'the upload'}: submit a .py file or a .zip")
        folder = Path(tempfile.mkdtemp(prefix="arena-upload-"))
        try:
            path = folder / filename
            with path.open("wb") as handle:
                shutil.copyfileobj(upload.file, handle)
            registered = register(store, settings.home, user, known_game(game), name.strip(), path, entry)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if not registered.validated:
            validate_later(registered)
        return SubmitResult(
            bot_id=registered.bot_id,
            version_id=registered.version_id,
            validation="passed" if registered.validated else "validating",
        )

    def start_tournament(request_session: Session, spec: TournamentSpec, user: User) -> int:
        """Create the tournament: the scheduler service plays it."""
        release(request_session)
        # a concurrent creation may register the same built-in bot first
        return once_more_on_conflict(lambda: create_tournament(spec, user))

    def create_tournament(spec: TournamentSpec, user: User) -> int:
        with store.session() as session:
            creator = session.merge(user)
            try:
                quota.check_room(session, creator)  # in the creating transaction
            except quota.QuotaError as error:
                raise HTTPException(429, str(error)) from None
            return create(session, spec, creator).tournament.id

    # ------------------------------------------------------------------ pages

    html: dict[str, Any] = {"response_class": HTMLResponse, "include_in_schema": False}

    @app.get("/", **html)
    def home(session: Db, who: Who) -> HTMLResponse:
        return page("home.html", who, games=views.games(), tournaments=views.tournaments(session, 10))

    @app.get("/ladder/{game}", **html)
    async def ladder_page(
        request: Request, game: str, page_number: LadderPage = 1, q: LadderSearch = ""
    ) -> HTMLResponse:
        game = known_game(game)
        current = await revisions.current(game)
        q = q.strip()
        if q:  # a search: not cached

            def found_page() -> str:
                with store.session() as session:
                    return render_ladder(game, current, page_number, viewer(request, session), session, q)

            return HTMLResponse(await run_in_threadpool(found_page))
        if request.cookies.get(security.SESSION_COOKIE) is None:  # the same page for every visitor
            key = f"page{page_number}"
            html_page = await cached(
                key, game, current, lambda: render_ladder(game, current, page_number, None)
            )
            return HTMLResponse(html_page)

        def signed_in_page() -> str:
            with store.session() as session:
                return render_ladder(game, current, page_number, viewer(request, session), session)

        return HTMLResponse(await run_in_threadpool(signed_in_page))

    @app.get("/ladder/{game}/table", **html)
    async def ladder_table_view(game: str, page_number: LadderPage = 1, q: LadderSearch = "") -> HTMLResponse:
        """The part of a ladder page that moves with the ladder: its script fetches it when the
        game's revision changes."""
        game = known_game(game)
        current = await revisions.current(game)
        table = None if q.strip() else cache.peek(f"table{page_number}", game, current)
        if table is None:
            table = await run_in_threadpool(ladder_table, game, current, page_number, None, q.strip())
        return HTMLResponse(table)

    def ladder_table(
        game: str, current: int, page_number: int, session: Session | None = None, q: str = ""
    ) -> str:
        """Page ``page_number`` of the ladder of revision ``current`` (its table, pager and fit), cached
        by revision: ranked bots, then those not yet connected to them, apart. With ``q``: only the
        bots whose name holds it (any case), not cached."""
        ladder = cached_ladder(game, current, session)
        entries = [e for e in ladder.entries if q.casefold() in e.bot.casefold()] if q else ladder.entries
        pages = max(1, -(-len(entries) // LADDER_PAGE))
        if page_number > pages:
            raise views.NotFound(f"the {game} ladder has {pages} page(s), not {page_number}")
        first = (page_number - 1) * LADDER_PAGE
        rows = entries[first : first + LADDER_PAGE]
        template = templates.get_template("ladder_table.html")

        def build() -> str:
            return template.render(
                ladder=ladder,
                ranked=[row for row in rows if row.connected],
                apart=[row for row in rows if not row.connected],
                alone=sum(row.connected for row in ladder.entries) == 1,
                page=page_number,
                pages=pages,
                shown=(first + 1, min(first + LADDER_PAGE, len(entries))),
                total=len(entries),
                q=q,
            )

        if q:
            return build()
        return cache.get(f"table{page_number}", game, current, build)  # type: ignore[no-any-return]

    def render_ladder(
        game: str,
        current: int,
        page_number: int,
        who: Viewer | None,
        session: Session | None = None,
        q: str = "",
    ) -> str:
        table = ladder_table(game, current, page_number, session, q)
        ladder = cached_ladder(game, current, session)
        return render("ladder.html", who, ladder=ladder, revision=current, table=table, page=page_number, q=q)

    @app.post("/ladder/{game}/refit", **html)
    def ladder_refit(game: str, session: Db, user: Annotated[User, Depends(form_user)]) -> Response:
        game = known_game(game)
        if not user.is_admin:
            raise HTTPException(403, "only an admin may refit a ladder")
        refit(store.engine, session, game)
        return RedirectResponse(f"/ladder/{game}", status_code=303)

    @app.get("/bots/{bot_id}", **html)
    def bot_view(bot_id: Id, session: Db, who: Who, page_number: MatchesPage = 1) -> HTMLResponse:
        bot = bot_page(session, bot_id, who, page_number)
        chart = charts.rating_history(bot.history, bot.versions)
        return page("bot.html", who, bot=bot, chart=chart, per_page=views.MATCHES_PAGE)

    @app.get("/versions/{version_id}/source", **html)
    def source_view(version_id: Id, session: Db, who: Who) -> HTMLResponse:
        return page("source.html", who, source=views.source(session, version_id, who.user, settings.home))

    @app.get("/matches/{match_id}", **html)
    def match_view(match_id: Id, session: Db, who: Who) -> HTMLResponse:
        return page("match.html", who, match=views.match_page(session, match_id, who.user))

    @app.get("/matches/{match_id}/logs/{agent}", response_class=PlainTextResponse, include_in_schema=False)
    def log_view(match_id: Id, agent: Index, session: Db, who: Who) -> PlainTextResponse:
        return PlainTextResponse(views.match_log(session, match_id, agent, who.user))

    @app.get("/tournaments", **html)
    def tournaments_view(
        session: Db, who: Who, game: str = "edible", page_number: TournamentsPage = 1
    ) -> HTMLResponse:
        game = known_game(game)
        listing = views.tournament_list(session, page_number)
        return page(
            "tournaments.html",
            who,
            tournaments=listing.tournaments,
            listing=listing,
            games=views.games(),
            game=game,
            playable=views.playable_bots(session, game),
        )

    @app.post("/tournaments", **html)
    def tournaments_create(
        session: Db,
        user: Annotated[User, Depends(form_user)],
        game: Annotated[str, Form()],
        bots: Annotated[list[str], Form()],
        games_per_match: Annotated[int, Form(ge=1, le=limits.MAX_GAMES_PER_MATCH)] = GAMES_PER_MATCH,
        rounds: Annotated[int, Form(ge=1, le=limits.MAX_ROUNDS)] = 1,
        duplicate: Annotated[bool, Form()] = False,
    ) -> Response:
        spec = TournamentSpec(
            game=known_game(game),
            bots=bots,
            games_per_match=games_per_match,
            rounds=rounds,
            duplicate=duplicate,
        )
        tournament_id = start_tournament(session, spec, user)
        return RedirectResponse(f"/tournaments/{tournament_id}", status_code=303)

    @app.get("/tournaments/{tournament_id}", **html)
    def tournament_view(tournament_id: Id, session: Db, who: Who) -> HTMLResponse:
        return page("tournament.html", who, tournament=views.tournament_page(session, tournament_id))

    @app.post("/tournaments/{tournament_id}/cancel", **html)
    def tournament_cancel(
        tournament_id: Id, session: Db, user: Annotated[User, Depends(form_user)]
    ) -> Response:
        cancel(session, tournament_id, user)
        return RedirectResponse(f"/tournaments/{tournament_id}", status_code=303)

    @app.get("/submit", **html)
    def submit_view(who: Who) -> Response:
        if who.user is None:
            return RedirectResponse("/login?next=/submit", status_code=303)
        return page("submit.html", who, games=views.games(), entered={})

    @app.post("/submit", **html)
    def submit_form(
        session: Db,
        who: Who,
        user: Annotated[User, Depends(form_user)],
        game: Annotated[str, Form()] = "",
        name: Annotated[str, Form()] = "",
        file: Annotated[UploadFile | None, File()] = None,
        entry: Annotated[str, Form()] = "",
    ) -> Response:
        """On any error the form comes back with what was entered (but the file) and the reason."""
        entered = {"game": game, "name": name, "entry": entry}
        try:
            if not name.strip():
                raise HTTPException(400, "give the bot a name")
            if file is None or not file.filename:
                raise HTTPException(400, "choose a .py file or a .zip to submit")
            submitted = submit_upload(session, user, game, name, file, entry.strip() or None)
        except (StarletteHTTPException, views.NotFound, StoreError, GameError, SubmissionError) as error:
            message = str(error.detail) if isinstance(error, StarletteHTTPException) else str(error)
            return page("submit.html", who, 400, games=views.games(), entered=entered, error=message)
        except SandboxError as error:
            message = f"the bot sandbox is not available here ({error}): try again later"
            return page("submit.html", who, 503, games=views.games(), entered=entered, error=message)
        except Exception:
            log.exception("a submission from the submit page failed")
            message = "the submission failed on the server's side: try again later"
            return page("submit.html", who, 500, games=views.games(), entered=entered, error=message)
        return RedirectResponse(f"/bots/{submitted.bot_id}", status_code=303)

    @app.get("/login", **html)
    def login_view(request: Request, next: str = "/") -> HTMLResponse:
        return anonymous_form("login.html", request, next=_local(next))

    @app.post("/login", **html)
    def login(
        request: Request,
        session: Db,
        name: Annotated[str, Form()],
        password: Annotated[str, Form()],
        csrf: Annotated[str, Form()] = "",
        next: Annotated[str, Form()] = "/",
    ) -> Response:
        check_anonymous_csrf(request, csrf)
        host = request.client.host if request.client else None
        if wait := throttle.login_wait(name, host):  # the right password too: arena.web.throttle
            message = f"too many failed log-ins: try again in {wait} s"
            refused = anonymous_form("login.html", request, 429, next=_local(next), error=message, name=name)
            refused.headers["Retry-After"] = str(wait)
            return refused
        try:
            key, _ = security.log_in(session, name.strip(), password)
        except AuthError as error:
            throttle.login_failed(name, host)
            return anonymous_form("login.html", request, 401, next=_local(next), error=str(error), name=name)
        throttle.login_succeeded(name)
        response = RedirectResponse(_local(next), status_code=303)
        response.set_cookie(
            security.SESSION_COOKIE,
            key,
            max_age=security.SESSION_DAYS * 86400,
            httponly=True,
            samesite="lax",
            secure=settings.secure_cookies,
        )
        return response

    @app.post("/logout", **html)
    def logout(request: Request, session: Db, user: Annotated[User, Depends(form_user)]) -> Response:
        security.log_out(session, request.cookies.get(security.SESSION_COOKIE))
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(security.SESSION_COOKIE)
        return response

    @app.get("/signup", **html)
    def signup_view(request: Request) -> HTMLResponse:
        return anonymous_form("signup.html", request)

    @app.post("/signup", **html)
    def signup(
        request: Request,
        session: Db,
        name: Annotated[str, Form()],
        password: Annotated[str, Form()],
        csrf: Annotated[str, Form()] = "",
    ) -> Response:
        check_anonymous_csrf(request, csrf)
        name = name.strip()
        if len(password) < security.MIN_PASSWORD:
            message = f"a password needs at least {security.MIN_PASSWORD} characters"
            return anonymous_form("signup.html", request, 400, error=message, name=name)
        try:
            user, token = create_user(session, name)
        except StoreError as error:  # checked before anything is written
            return anonymous_form("signup.html", request, 400, error=str(error), name=name)
        security.set_password(user, password)
        key, web = security.log_in(session, name, password)
        response = page("welcome.html", Viewer(user, web.csrf, False), token=token)
        response.set_cookie(
            security.SESSION_COOKIE,
            key,
            max_age=security.SESSION_DAYS * 86400,
            httponly=True,
            samesite="lax",
            secure=settings.secure_cookies,
        )
        return response

    @app.get("/api/docs", **html)
    def api_docs(who: Who) -> HTMLResponse:
        return page("api_docs.html", who, spec=app.openapi(), schema_name=_schema_name)

    @app.get("/healthz", include_in_schema=False)
    def health() -> dict[str, str]:
        return {"status": "ok"}

    from arena.web.pages import add_pages  # it uses this module's dependencies

    add_pages(
        app, page, known_game, lambda session, game: cached_ladder(game, revision(session, game), session)
    )

    return app


class SubmitResult(BaseModel):
    bot_id: int
    version_id: int
    validation: views.Validation
    """``validating`` while the validation match runs in the background, then ``passed`` (only
    then may the version play) or ``failed``: the bot's page shows it, with the match's log."""


def _schema_name(schema: dict[str, Any] | bool) -> str:
    """A short type name for an OpenAPI schema: ``LadderEntry``, ``list[Step]``, ``integer | null``."""
    if not isinstance(schema, dict):
        return "any"
    if "$ref" in schema:
        return str(schema["$ref"]).rsplit("/", 1)[-1]
    if "anyOf" in schema:
        return " | ".join(_schema_name(option) for option in schema["anyOf"])
    if schema.get("type") == "array":
        return f"list[{_schema_name(schema.get('items', {}))}]"
    if schema.get("type") == "object" and "additionalProperties" in schema:
        return f"dict[str, {_schema_name(schema['additionalProperties'])}]"
    return str(schema.get("type", "any"))


def _too_large_page(message: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<title>Too large · Card Arena</title><link rel="stylesheet" href="/static/style.css"></head>'
        f'<body><main><h1>Error 413</h1><p class="error" role="alert">{message}: nothing was stored.</p>'
        '<p><a href="/submit">Back to the submit page</a> · <a href="/">the start page</a></p>'
        "</main></body></html>"
    )


def _allowed_methods(app: FastAPI, scope: Scope) -> str:
    """Every method some route takes at the request's path (the ``Allow`` of a 405)."""
    methods: set[str] = set()
    for route in app.router.routes:
        if isinstance(route, APIRoute) and route.matches(scope)[0] != RouteMatch.NONE:
            methods |= route.methods or set()
    return ", ".join(sorted(methods))


def _local(target: str) -> str:
    """Only redirect within the site."""
    safe = target.startswith("/") and not target.startswith("//") and "\\" not in target
    return target if safe and target.isprintable() else "/"
