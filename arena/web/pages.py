"""The web app's server-rendered pages, but for the ladders' and the accounts' own.

The start page, bots and their sources, matches and their logs, tournaments (and the form that starts
one), the submit form, the API's docs and a health check; the rules (``/rules/{game}``) and "write
your first bot" (``/start``, with the starter bots to download). The ladders' pages are in
``arena.web.ladder_pages``, signing in and the author's own page in ``arena.web.account_pages``.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from arena.games.base import GameError
from arena.runner.terms import GAMES_PER_MATCH
from arena.sandbox import SandboxError
from arena.store.errors import StoreError
from arena.store.models import User
from arena.submissions import SubmissionError
from arena.tournament import limits
from arena.tournament.challenges import DEFAULT_GAMES, MAX_GAMES
from arena.tournament.service import TournamentSpec
from arena.web import charts, learn
from arena.web.deps import Act, Cache, Config, Db, MatchesPage, Storage, Who, form_user
from arena.web.render import html, page
from arena.web.tournaments import Id, Index, cancel
from arena.web.views import abtests, challenges
from arena.web.views.bots import MATCHES_PAGE
from arena.web.views.common import NotFound
from arena.web.views.games import games, games_by_name, known_game
from arena.web.views.matches import match_log, match_page
from arena.web.views.sources import source
from arena.web.views.tournaments import playable_bots, tournament_list, tournament_page, tournaments

log = logging.getLogger("arena.web")
TournamentsPage = Annotated[int, Query(alias="page", ge=1)]
router = APIRouter()


@router.get("/", **html)
def home(session: Db, who: Who) -> HTMLResponse:
    return page("home.html", who, games=games(), tournaments=tournaments(session, 10))


@router.get("/bots/{bot_id}", **html)
def bot_view(bot_id: Id, session: Db, who: Who, ladders: Cache, page_number: MatchesPage = 1) -> HTMLResponse:
    bot = ladders.bot_page(session, bot_id, who.user, page_number)
    chart = charts.rating_history(bot.history, bot.versions)
    opponents = challenges.opponents(session, who.user, bot_id)
    return page(
        "bot.html",
        who,
        bot=bot,
        chart=chart,
        per_page=MATCHES_PAGE,
        opponents=opponents,
        default_games=DEFAULT_GAMES,
        max_games=MAX_GAMES,
        abtest_games=limits.DEFAULT_TEST_GAMES,
    )


@router.post("/bots/{bot_id}/challenges", **html)
def bot_challenge(
    bot_id: Id,
    session: Db,
    user: Annotated[User, Depends(form_user)],
    store: Storage,
    opponent: Annotated[str, Form(min_length=1, max_length=limits.MAX_BOT_NAME)],
    games: Annotated[int, Form(ge=1, le=MAX_GAMES)] = DEFAULT_GAMES,
) -> Response:
    request = challenges.ChallengeRequest(opponent=opponent, games=games)
    tournament_id = challenges.start(store, session, user, bot_id, request)
    with store.session() as own:
        match_id = challenges.challenge(own, tournament_id).match_id
    return RedirectResponse(f"/matches/{match_id}", status_code=303)


@router.post("/bots/{bot_id}/open", **html)
def bot_open(
    bot_id: Id,
    session: Db,
    user: Annotated[User, Depends(form_user)],
    open_to_others: Annotated[bool, Form()] = False,
) -> Response:
    challenges.set_open(session, user, bot_id, challenges.OpenRequest(open_to_others=open_to_others))
    return RedirectResponse(f"/bots/{bot_id}", status_code=303)


@router.post("/abtests", **html)
def abtest_create(
    session: Db,
    user: Annotated[User, Depends(form_user)],
    store: Storage,
    game: Annotated[str, Form(max_length=32)],
    new: Annotated[str, Form(min_length=1, max_length=limits.MAX_BOT_NAME)],
    old: Annotated[str, Form(min_length=1, max_length=limits.MAX_BOT_NAME)],
    elo0: Annotated[float, Form(ge=-1000, le=1000)] = 0.0,
    elo1: Annotated[float, Form(ge=-1000, le=1000)] = 5.0,
    max_games: Annotated[int, Form(ge=1, le=limits.MAX_TEST_GAMES)] = limits.DEFAULT_TEST_GAMES,
) -> Response:
    request = abtests.request_from_form(known_game(game), new, old, elo0, elo1, max_games)
    return RedirectResponse(f"/abtests/{abtests.start(store, session, user, request)}", status_code=303)


@router.get("/abtests/{test_id}", **html)
def abtest_view(test_id: Id, session: Db, who: Who) -> HTMLResponse:
    test = abtests.abtest_view(session, test_id)
    chart = charts.llr_history([(p.games, p.llr) for p in test.history], test.lower, test.upper)
    return page("abtest.html", who, test=test, chart=chart)


@router.get("/versions/{version_id}/source", **html)
def source_view(version_id: Id, session: Db, who: Who, settings: Config) -> HTMLResponse:
    return page("source.html", who, source=source(session, version_id, who.user, settings.home))


@router.get("/matches/{match_id}", **html)
def match_view(match_id: Id, session: Db, who: Who) -> HTMLResponse:
    return page("match.html", who, match=match_page(session, match_id, who.user))


@router.get("/matches/{match_id}/logs/{agent}", response_class=PlainTextResponse, include_in_schema=False)
def log_view(match_id: Id, agent: Index, session: Db, who: Who) -> PlainTextResponse:
    return PlainTextResponse(match_log(session, match_id, agent, who.user))


@router.get("/tournaments", **html)
def tournaments_view(
    session: Db, who: Who, game: str = "edible", page_number: TournamentsPage = 1
) -> HTMLResponse:
    game = known_game(game)
    listing = tournament_list(session, page_number)
    return page(
        "tournaments.html",
        who,
        tournaments=listing.tournaments,
        listing=listing,
        games=games(),
        game=game,
        playable=playable_bots(session, game),
    )


@router.post("/tournaments", **html)
def tournaments_create(
    session: Db,
    user: Annotated[User, Depends(form_user)],
    game: Annotated[str, Form()],
    bots: Annotated[list[str], Form()],
    actions: Act,
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
    tournament_id = actions.start_tournament(session, spec, user)
    return RedirectResponse(f"/tournaments/{tournament_id}", status_code=303)


@router.get("/tournaments/{tournament_id}", **html)
def tournament_view(tournament_id: Id, session: Db, who: Who) -> HTMLResponse:
    return page("tournament.html", who, tournament=tournament_page(session, tournament_id))


@router.post("/tournaments/{tournament_id}/cancel", **html)
def tournament_cancel(tournament_id: Id, session: Db, user: Annotated[User, Depends(form_user)]) -> Response:
    cancel(session, tournament_id, user)
    return RedirectResponse(f"/tournaments/{tournament_id}", status_code=303)


@router.get("/submit", **html)
def submit_view(who: Who) -> Response:
    if who.user is None:
        return RedirectResponse("/login?next=/submit", status_code=303)
    return page("submit.html", who, games=games(), entered={})


@router.post("/submit", **html)
def submit_form(
    session: Db,
    who: Who,
    user: Annotated[User, Depends(form_user)],
    actions: Act,
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
        submitted = actions.submit_upload(session, user, game, name, file, entry.strip() or None)
    except (StarletteHTTPException, NotFound, StoreError, GameError, SubmissionError) as error:
        message = str(error.detail) if isinstance(error, StarletteHTTPException) else str(error)
        return page("submit.html", who, 400, games=games(), entered=entered, error=message)
    except SandboxError as error:
        message = f"the bot sandbox is not available here ({error}): try again later"
        return page("submit.html", who, 503, games=games(), entered=entered, error=message)
    except Exception:
        log.exception("a submission from the submit page failed")
        message = "the submission failed on the server's side: try again later"
        return page("submit.html", who, 500, games=games(), entered=entered, error=message)
    return RedirectResponse(f"/bots/{submitted.bot_id}", status_code=303)


@router.get("/api/docs", **html)
def api_docs(request: Request, who: Who) -> HTMLResponse:
    return page("api_docs.html", who, spec=request.app.openapi(), schema_name=_schema_name)


@router.get("/healthz", include_in_schema=False)
def health() -> dict[str, str]:
    return {"status": "ok"}


# ------------------------------------------------------------------ learn and start


@router.get("/rules", **html)
def rules_index(who: Who) -> HTMLResponse:
    return page("rules_index.html", who, games=games())


@router.get("/rules/{game}", **html)
def rules_view(game: str, who: Who) -> HTMLResponse:
    game = known_game(game)
    rules = learn.rules_html(game)
    if rules is None:
        raise NotFound(f"the {game} rules are not installed here")
    info = games_by_name()[game]
    return page("rules.html", who, game=info, games=games(), rules=rules)


@router.get("/start", **html)
def start_view(who: Who) -> HTMLResponse:
    return page(
        "start.html",
        who,
        python_starter=learn.python_starter() is not None,
        kits=learn.kits(),
        proto=learn.PROTO.is_file(),
    )


@router.get("/start/edible_starter.py", include_in_schema=False)
def python_starter() -> Response:
    return _download(learn.python_starter(), "edible_starter.py", "text/x-python; charset=utf-8")


@router.get("/start/arena.proto", include_in_schema=False)
def proto() -> Response:
    found = learn.PROTO.read_bytes() if learn.PROTO.is_file() else None
    return _download(found, "arena.proto", "text/plain; charset=utf-8", inline=True)


@router.get("/start/{kit}.zip", include_in_schema=False)
def kit_zip(kit: str) -> Response:
    return _download(learn.kit_zip(kit), f"{kit}-starter.zip", "application/zip")


@router.get("/start/{kit}/{path:path}", include_in_schema=False)
def kit_file(kit: str, path: str) -> Response:
    name = path.rsplit("/", 1)[-1]
    return _download(learn.kit_file(kit, path), name, "text/plain; charset=utf-8", inline=True)


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


def _download(body: bytes | None, name: str, media_type: str, inline: bool = False) -> Response:
    if body is None:
        raise NotFound(f"{name} is not available on this server")
    disposition = "inline" if inline else "attachment"
    headers = {
        "content-disposition": f'{disposition}; filename="{name}"',
        "x-content-type-options": "nosniff",
    }
    return Response(body, media_type=media_type, headers=headers)
