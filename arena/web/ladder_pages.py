"""The ladders' pages (``/ladder/{game}``): the ranked bots, and those not yet connected to them.

A page is built once per ladder revision and page, the same for every signed-out visitor; the
page's script fetches its table again (``/ladder/{game}/table``) when the ladder moves. An admin
refits a ladder from its page.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from arena.ratings.ladder import refit
from arena.ratings.rated import TERMS
from arena.store.models import User
from arena.web import security
from arena.web.caches import Ladders
from arena.web.deps import Cache, Db, Storage, Viewer, form_user, viewer
from arena.web.render import html, render, templates
from arena.web.views.common import NotFound
from arena.web.views.games import known_game

LADDER_PAGE = 100
"""Bots per ladder page (the JSON API returns the whole ladder)."""
LadderPage = Annotated[int, Query(alias="page", ge=1)]
"""Which page of a ladder (1 the top)."""
LadderSearch = Annotated[str, Query(max_length=64, description="only bots whose name holds this")]

router = APIRouter()


@router.get("/ladder/{game}", **html)
async def ladder_page(
    request: Request,
    game: str,
    ladders: Cache,
    store: Storage,
    page_number: LadderPage = 1,
    q: LadderSearch = "",
) -> HTMLResponse:
    game = known_game(game)
    current = await ladders.revisions.current(game)
    q = q.strip()
    if q:  # a search: not cached

        def found_page() -> str:
            with store.session() as session:
                return render_ladder(
                    ladders, game, current, page_number, viewer(request, session), session, q
                )

        return HTMLResponse(await run_in_threadpool(found_page))
    if request.cookies.get(security.SESSION_COOKIE) is None:  # the same page for every visitor
        key = f"page{page_number}"
        html_page = await ladders.cached(
            key, game, current, lambda: render_ladder(ladders, game, current, page_number, None)
        )
        return HTMLResponse(html_page)

    def signed_in_page() -> str:
        with store.session() as session:
            return render_ladder(ladders, game, current, page_number, viewer(request, session), session)

    return HTMLResponse(await run_in_threadpool(signed_in_page))


@router.get("/ladder/{game}/table", **html)
async def ladder_table_view(
    game: str, ladders: Cache, page_number: LadderPage = 1, q: LadderSearch = ""
) -> HTMLResponse:
    """The part of a ladder page that moves with the ladder: its script fetches it when the
    game's revision changes."""
    game = known_game(game)
    current = await ladders.revisions.current(game)
    table = None if q.strip() else ladders.cache.peek(f"table{page_number}", game, current)
    if table is None:
        table = await run_in_threadpool(ladder_table, ladders, game, current, page_number, None, q.strip())
    return HTMLResponse(table)


def ladder_table(
    ladders: Ladders, game: str, current: int, page_number: int, session: Session | None = None, q: str = ""
) -> str:
    """Page ``page_number`` of the ladder of revision ``current`` (its table, pager and fit), cached
    by revision: ranked bots, then those not fitted yet and those not yet connected, apart. With
    ``q``: only the
    bots whose name holds it (any case), not cached."""
    ladder = ladders.cached_ladder(game, current, session)
    entries = [e for e in ladder.entries if q.casefold() in e.bot.casefold()] if q else ladder.entries
    pages = max(1, -(-len(entries) // LADDER_PAGE))
    if page_number > pages:
        raise NotFound(f"the {game} ladder has {pages} page(s), not {page_number}")
    first = (page_number - 1) * LADDER_PAGE
    rows = entries[first : first + LADDER_PAGE]
    template = templates.get_template("ladder_table.html")

    def build() -> str:
        return template.render(
            ladder=ladder,
            ranked=[row for row in rows if row.rank is not None],
            unfitted=[row for row in rows if not row.fitted],
            apart=[row for row in rows if row.fitted and not row.connected],
            alone=sum(row.rank is not None for row in ladder.entries) == 1,
            page=page_number,
            pages=pages,
            shown=(first + 1, min(first + LADDER_PAGE, len(entries))),
            total=len(entries),
            q=q,
        )

    if q:
        return build()
    return ladders.cache.get(f"table{page_number}", game, current, build)  # type: ignore[no-any-return]


def render_ladder(
    ladders: Ladders,
    game: str,
    current: int,
    page_number: int,
    who: Viewer | None,
    session: Session | None = None,
    q: str = "",
) -> str:
    table = ladder_table(ladders, game, current, page_number, session, q)
    ladder = ladders.cached_ladder(game, current, session)
    return render(
        "ladder.html", who, ladder=ladder, revision=current, table=table, page=page_number, q=q, rated=TERMS
    )


@router.post("/ladder/{game}/refit", **html)
def ladder_refit(
    game: str, session: Db, user: Annotated[User, Depends(form_user)], store: Storage
) -> Response:
    game = known_game(game)
    if not user.is_admin:
        raise HTTPException(403, "only an admin may refit a ladder")
    refit(store.engine, session, game)
    return RedirectResponse(f"/ladder/{game}", status_code=303)
