"""The pages where a person plays bots: the form that starts a game, the table, and its two channels.

The table follows its seat over server-sent events and answers with POSTs: both are plain HTTP that
FastAPI serves as it is (uvicorn's WebSockets need a library the app does not otherwise install),
an ``EventSource`` reconnects by itself, and an answer goes through the session and CSRF checks of
every other form. The games themselves: ``arena.web.playing``.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, StreamingResponse

from arena.games.base import BadConfig
from arena.games.registry import get_game
from arena.runner.replay import ReplayError, action_from_json
from arena.store.models import Match, User
from arena.web import security
from arena.web.actions import release
from arena.web.deps import Db, Who, form_user
from arena.web.playing import PlayError, Tables, opponents
from arena.web.render import html, page
from arena.web.tournaments import Id
from arena.web.views.games import games, known_game

router = APIRouter()
HEARTBEAT_S = 10.0
"""A stream with nothing to say sends a comment this often: a page that is gone is noticed."""
STREAM_S = 30.0
"""A stream ends after this long, and its page connects again: a server stopping waits for no game."""
RETRY_MS = 1000
"""How soon a page connects again after its stream ends or breaks."""
MAX_CONFIG_CHARS = 2000


def tables(request: Request) -> Tables:
    found: Tables = request.app.state.tables
    return found


def _signed_in(who: Any) -> User:
    if who.user is None:
        raise HTTPException(401, "log in to play")
    user: User = who.user
    return user


@router.get("/play", **html)
def play_form(request: Request, session: Db, who: Who, game: str = "edible") -> HTMLResponse:
    game = known_game(game)
    engine = get_game(game)
    return page(
        "play_form.html",
        who,
        games=games(),
        game=game,
        seats=range(engine.max_seats - 1),
        defaults=engine.min_seats - 1,
        bots=opponents(session, game, who.user) if who.user is not None else [],
        config=json.dumps(engine.config_type().to_dict()),
        clock_s=tables(request).clock_s,
        in_play=tables(request).in_play(who.user) if who.user is not None else [],
    )


@router.post("/play", include_in_schema=False)
def play_start(
    request: Request,
    session: Db,
    user: Annotated[User, Depends(form_user)],
    game: Annotated[str, Form(max_length=32)] = "",
    opponent: Annotated[list[str] | None, Form()] = None,
    seed: Annotated[str, Form(max_length=40)] = "",
    config: Annotated[str, Form(max_length=MAX_CONFIG_CHARS)] = "",
) -> Response:
    names = [name.strip() for name in opponent or [] if name.strip()]
    try:
        chosen_seed = int(seed) if seed.strip() else None
    except ValueError:
        raise HTTPException(400, f"a seed is a whole number, not {seed[:40]!r}") from None
    try:
        settings = json.loads(config) if config.strip() else {}
    except json.JSONDecodeError as error:
        raise HTTPException(400, f"the config is not JSON: {error}") from None
    if not isinstance(settings, dict):
        raise HTTPException(400, "the config is a JSON object of the game's settings")
    release(session)  # the game is created in a transaction of its own
    try:
        match_id = tables(request).start(user, known_game(game), names, chosen_seed, settings)
    except PlayError as error:
        raise HTTPException(error.status, str(error)) from None
    return RedirectResponse(f"/play/{match_id}", status_code=303)


@router.get("/play/{match_id}", **html)
def play_view(request: Request, match_id: Id, session: Db, who: Who) -> Response:
    user = _signed_in(who)
    seating = tables(request).get(match_id, user)
    if seating is None:
        if session.get(Match, match_id) is not None:  # over (or another's): its match page
            return RedirectResponse(f"/matches/{match_id}", status_code=303)
        raise HTTPException(404, f"no game {match_id} of yours is in play")
    return page("play.html", who, match_id=match_id, game=seating.game.name, clock_s=seating.clock_s)


@router.get("/play/{match_id}/events", include_in_schema=False)
def play_events(request: Request, match_id: Id, who: Who) -> StreamingResponse:
    user = _signed_in(who)
    seating = tables(request).get(match_id, user)
    if seating is None:
        raise HTTPException(404, f"no game {match_id} of yours is in play")
    if not seating.streams.take():
        raise HTTPException(429, "this game's page connects too often: wait a few seconds and reload")
    table = seating.table

    async def events() -> AsyncIterator[str]:
        stream = table.open_stream()
        ends = time.monotonic() + STREAM_S
        try:
            last = -1
            yield f"retry: {RETRY_MS}\n\n"
            while table.current(stream):
                seq, view = table.snapshot()
                if seq != last:
                    last = seq
                    yield f"id: {seq}\nevent: view\ndata: {json.dumps(seating.message(seq, view))}\n\n"
                    if view.over:
                        return
                elif time.monotonic() >= ends:
                    return  # the page connects again at once
                else:
                    yield ": alive\n\n"
                await table.changed(seq, min(HEARTBEAT_S, max(0.0, ends - time.monotonic())))
            yield "event: replaced\ndata: {}\n\n"  # the seat is played from a newer page now
        finally:
            table.close_stream()

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


@router.post("/play/{match_id}/act", include_in_schema=False)
async def play_act(request: Request, match_id: Id, who: Who) -> JSONResponse:
    def refuse(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    if who.user is None:
        return refuse(401, "log in to play")
    if not security.same_token(request.headers.get("x-csrf-token"), who.csrf):
        return refuse(403, "the page's CSRF token is missing or stale: reload the page")
    seating = tables(request).get(match_id, who.user)
    if seating is None:
        return refuse(404, f"no game {match_id} of yours is in play")
    if not seating.answers.take():
        return refuse(429, "too many answers at once: slow down")
    try:
        body = await request.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return refuse(400, "send a JSON object: {decision, action}")
    if (
        not isinstance(body, dict)
        or not isinstance(body.get("decision"), int)
        or not isinstance(body.get("action"), dict)
    ):
        return refuse(400, "send a JSON object: {decision: a number, action: an action}")
    try:
        action = action_from_json(seating.game, body["action"])
    except (ReplayError, BadConfig, TypeError, ValueError) as error:
        return refuse(400, str(error))
    why = seating.table.answer(seating.game, body["decision"], action)
    if why is not None:
        return refuse(409, why)
    return JSONResponse({"ok": True})
