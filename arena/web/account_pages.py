"""Accounts: signing up, in and out, and the signed-in author's own page.

The forms carry an anonymous CSRF token until there is a session; the author's own page (``/me``)
has their bots, a new API token and a new password.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from arena.store.errors import AuthError, StoreError
from arena.store.models import User
from arena.store.repo import create_user
from arena.store.repo.accounts import replace_token
from arena.web import account, security
from arena.web.caches import Ladders
from arena.web.deps import Cache, Config, Db, Viewer, Who, form_user
from arena.web.render import html, page
from arena.web.settings import Settings
from arena.web.throttle import Throttle

router = APIRouter()


@router.get("/login", **html)
def login_view(request: Request, settings: Config, next: str = "/") -> HTMLResponse:
    return anonymous_form("login.html", request, settings, next=_local(next))


@router.post("/login", **html)
def login(
    request: Request,
    session: Db,
    settings: Config,
    name: Annotated[str, Form()],
    password: Annotated[str, Form()],
    csrf: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/",
) -> Response:
    check_anonymous_csrf(request, csrf)
    throttle: Throttle = request.app.state.throttle
    host = request.client.host if request.client else None
    if wait := throttle.login_wait(name, host):  # the right password too: arena.web.throttle
        message = f"too many failed log-ins: try again in {wait} s"
        refused = anonymous_form(
            "login.html", request, settings, 429, next=_local(next), error=message, name=name
        )
        refused.headers["Retry-After"] = str(wait)
        return refused
    try:
        key, _ = security.log_in(session, name.strip(), password)
    except AuthError as error:
        throttle.login_failed(name, host)
        return anonymous_form(
            "login.html", request, settings, 401, next=_local(next), error=str(error), name=name
        )
    throttle.login_succeeded(name)
    response = RedirectResponse(_local(next), status_code=303)
    return _with_session(response, key, settings)


def _with_session(response: Response, key: str, settings: Settings) -> Response:
    """``response`` with the signed-in session's cookie set (log-in and sign-up)."""
    response.set_cookie(
        security.SESSION_COOKIE,
        key,
        max_age=security.SESSION_DAYS * 86400,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
    return response


@router.post("/logout", **html)
def logout(request: Request, session: Db, user: Annotated[User, Depends(form_user)]) -> Response:
    security.log_out(session, request.cookies.get(security.SESSION_COOKIE))
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(security.SESSION_COOKIE)
    return response


@router.get("/signup", **html)
def signup_view(request: Request, settings: Config) -> HTMLResponse:
    return anonymous_form("signup.html", request, settings)


@router.post("/signup", **html)
def signup(
    request: Request,
    session: Db,
    settings: Config,
    name: Annotated[str, Form()],
    password: Annotated[str, Form()],
    csrf: Annotated[str, Form()] = "",
) -> Response:
    check_anonymous_csrf(request, csrf)
    name = name.strip()
    throttle: Throttle = request.app.state.throttle
    host = request.client.host if request.client else None
    if wait := throttle.take_signup(host):  # accounts per address: arena.web.throttle
        message = f"too many sign-ups from this address: try again in {wait} s"
        refused = anonymous_form("signup.html", request, settings, 429, error=message, name=name)
        refused.headers["Retry-After"] = str(wait)
        return refused
    if len(password) < security.MIN_PASSWORD:
        throttle.return_signup(host)
        message = f"a password needs at least {security.MIN_PASSWORD} characters"
        return anonymous_form("signup.html", request, settings, 400, error=message, name=name)
    try:
        user, token = create_user(session, name)
    except StoreError as error:  # checked before anything is written
        throttle.return_signup(host)
        return anonymous_form("signup.html", request, settings, 400, error=str(error), name=name)
    security.set_password(user, password)
    key, web = security.log_in(session, name, password)
    response = page("welcome.html", Viewer(user, web.csrf, False), token=token)
    return _with_session(response, key, settings)


# ------------------------------------------------------------------ the author's own page


def me_page(
    session: Session, who: Viewer, ladders: Ladders, status: int = 200, **context: Any
) -> HTMLResponse:
    assert who.user is not None
    bots = account.my_bots(session, who.user, lambda game: ladders.current_ladder(session, game))
    return page("me.html", who, status, bots=bots, min_password=security.MIN_PASSWORD, **context)


@router.get("/me", **html)
def me_view(session: Db, who: Who, ladders: Cache) -> Response:
    if who.user is None:
        return RedirectResponse("/login?next=/me", status_code=303)
    return me_page(session, who, ladders)


@router.post("/me/token", **html)
def me_token(
    session: Db, who: Who, user: Annotated[User, Depends(form_user)], ladders: Cache
) -> HTMLResponse:
    token = replace_token(session, user)
    return me_page(session, who, ladders, token=token)


@router.post("/me/password", **html)
def me_password(
    request: Request,
    session: Db,
    who: Who,
    user: Annotated[User, Depends(form_user)],
    ladders: Cache,
    current: Annotated[str, Form()] = "",
    new: Annotated[str, Form()] = "",
) -> HTMLResponse:
    try:
        account.change_password(session, user, current, new, request.cookies.get(security.SESSION_COOKIE))
    except (AuthError, StoreError) as error:
        return me_page(session, who, ladders, 400, password_error=str(error))
    return me_page(session, who, ladders, password_changed=True)


def anonymous_form(
    template: str, request: Request, settings: Settings, status: int = 200, **context: Any
) -> HTMLResponse:
    token = request.cookies.get(security.ANON_CSRF_COOKIE) or secrets.token_urlsafe(24)
    response = page(template, None, status, form_csrf=token, **context)
    response.set_cookie(
        security.ANON_CSRF_COOKIE, token, httponly=True, samesite="lax", secure=settings.secure_cookies
    )
    return response


def check_anonymous_csrf(request: Request, sent: str) -> None:
    if not security.same_token(sent, request.cookies.get(security.ANON_CSRF_COOKIE)):
        raise HTTPException(403, "the form's CSRF token is missing or stale: reload the page and retry")


def _local(target: str) -> str:
    """Only redirect within the site."""
    safe = target.startswith("/") and not target.startswith("//") and "\\" not in target
    return target if safe and target.isprintable() else "/"
