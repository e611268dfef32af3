"""Pages for learning and for authors: the rules (``/rules/{game}``), "write your first bot"
(``/start``, with the starter bots to download) and the signed-in author's own page (``/me``: their
bots, a new API token, a new password). ``arena.web.app`` adds them to the app."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session

from arena.store.errors import AuthError, StoreError
from arena.store.models import User
from arena.web import account, learn, security, views
from arena.web.app import Db, Viewer, Who, form_user

Page = Callable[..., HTMLResponse]
"""``page(template, who, status=200, **context)``: the app's page renderer."""


def add_pages(
    app: FastAPI,
    page: Page,
    known_game: Callable[[str], str],
    ladder_of: Callable[[Session, str], views.Ladder],
) -> None:
    html: dict[str, Any] = {"response_class": HTMLResponse, "include_in_schema": False}

    # ------------------------------------------------------------------ learn and start

    @app.get("/rules", **html)
    def rules_index(who: Who) -> HTMLResponse:
        return page("rules_index.html", who, games=views.games())

    @app.get("/rules/{game}", **html)
    def rules_view(game: str, who: Who) -> HTMLResponse:
        game = known_game(game)
        rules = learn.rules_html(game)
        if rules is None:
            raise views.NotFound(f"the {game} rules are not installed here")
        info = views.games_by_name()[game]
        return page("rules.html", who, game=info, games=views.games(), rules=rules)

    @app.get("/start", **html)
    def start_view(who: Who) -> HTMLResponse:
        return page(
            "start.html",
            who,
            python_starter=learn.python_starter() is not None,
            kits=learn.kits(),
            proto=learn.PROTO.is_file(),
        )

    @app.get("/start/edible_starter.py", include_in_schema=False)
    def python_starter() -> Response:
        return _download(learn.python_starter(), "edible_starter.py", "text/x-python; charset=utf-8")

    @app.get("/start/arena.proto", include_in_schema=False)
    def proto() -> Response:
        found = learn.PROTO.read_bytes() if learn.PROTO.is_file() else None
        return _download(found, "arena.proto", "text/plain; charset=utf-8", inline=True)

    @app.get("/start/{kit}.zip", include_in_schema=False)
    def kit_zip(kit: str) -> Response:
        return _download(learn.kit_zip(kit), f"{kit}-starter.zip", "application/zip")

    @app.get("/start/{kit}/{path:path}", include_in_schema=False)
    def kit_file(kit: str, path: str) -> Response:
        name = path.rsplit("/", 1)[-1]
        return _download(learn.kit_file(kit, path), name, "text/plain; charset=utf-8", inline=True)

    # ------------------------------------------------------------------ the author's own page

    def me_page(session: Session, who: Viewer, status: int = 200, **context: Any) -> HTMLResponse:
        assert who.user is not None
        bots = account.my_bots(session, who.user, lambda game: ladder_of(session, game))
        return page("me.html", who, status, bots=bots, min_password=security.MIN_PASSWORD, **context)

    @app.get("/me", **html)
    def me_view(session: Db, who: Who) -> Response:
        if who.user is None:
            return RedirectResponse("/login?next=/me", status_code=303)
        return me_page(session, who)

    @app.post("/me/token", **html)
    def me_token(session: Db, who: Who, user: Annotated[User, Depends(form_user)]) -> HTMLResponse:
        token = account.new_token(session, user)
        return me_page(session, who, token=token)

    @app.post("/me/password", **html)
    def me_password(
        request: Request,
        session: Db,
        who: Who,
        user: Annotated[User, Depends(form_user)],
        current: Annotated[str, Form()] = "",
        new: Annotated[str, Form()] = "",
    ) -> HTMLResponse:
        try:
            account.change_password(session, user, current, new, request.cookies.get(security.SESSION_COOKIE))
        except (AuthError, StoreError) as error:
            return me_page(session, who, 400, password_error=str(error))
        return me_page(session, who, password_changed=True)


def _download(body: bytes | None, name: str, media_type: str, inline: bool = False) -> Response:
    if body is None:
        raise views.NotFound(f"{name} is not available on this server")
    disposition = "inline" if inline else "attachment"
    headers = {
        "content-disposition": f'{disposition}; filename="{name}"',
        "x-content-type-options": "nosniff",
    }
    return Response(body, media_type=media_type, headers=headers)
