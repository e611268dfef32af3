"""What the routes depend on: the request's store session, who is asking, and the app's own parts.

Who is asking is a ``Viewer`` (a browser session or an API token), with who a route lets in; the
app's own parts are its settings, store, ladders and actions. The query parameters the API and the
pages share are here too.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterator
from typing import Annotated, Any

from fastapi import Depends, Form, HTTPException, Query, Request
from sqlalchemy.orm import Session

from arena.store.db import Store
from arena.store.errors import AuthError
from arena.store.models import User
from arena.store.repo import authenticate
from arena.web import security
from arena.web.actions import Actions
from arena.web.caches import Ladders
from arena.web.settings import Settings
from arena.web.throttle import Throttle


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


def state(name: str) -> Callable[[Request], Coroutine[Any, Any, Any]]:
    """A dependency on the app's part ``name``, which ``create_app`` keeps in ``app.state``: read
    without leaving the event loop (a plain function would run in a worker thread)."""

    async def part(request: Request) -> Any:
        return getattr(request.app.state, name)

    return part


Config = Annotated[Settings, Depends(state("settings"))]
Storage = Annotated[Store, Depends(state("store"))]
Cache = Annotated[Ladders, Depends(state("ladders"))]
Act = Annotated[Actions, Depends(state("actions"))]

MatchesPage = Annotated[int, Query(alias="page", ge=1, description="which page of its matches, 1 the newest")]
