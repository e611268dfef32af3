"""The JSON API, under ``/api/v1`` (OpenAPI at ``/api/openapi.json``, read at ``/api/docs``): the games,
ladders, bots, matches and their replays, tournaments, and who you are. Reads take a browser session
or an API token; writes take the API token only (``token_user``)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, HTTPException, Query, UploadFile
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel

from arena.ratings.ladder import refit
from arena.store.models import User
from arena.tournament.service import TournamentSpec
from arena.web.account import Me, me
from arena.web.actions import SubmitResult
from arena.web.deps import Act, Cache, Config, Db, MatchesPage, Storage, Who, signed_in, token_user
from arena.web.tournaments import Id, Index, TournamentRequest, cancel
from arena.web.views import abtests, challenges
from arena.web.views.bots import BotPage
from arena.web.views.games import GameInfo, games, known_game
from arena.web.views.ladder import Ladder, LadderRevision, ladder
from arena.web.views.matches import MatchPage, match_log, match_page
from arena.web.views.replays import ReplayView, file_name, replay_file, replay_view
from arena.web.views.sources import Source, source
from arena.web.views.tournaments import TournamentLine, TournamentPage, tournament_page, tournaments

API = "/api/v1"
router = APIRouter(prefix=API)


class ErrorBody(BaseModel):
    error: str


RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorBody},
    401: {"model": ErrorBody},
    403: {"model": ErrorBody},
    404: {"model": ErrorBody},
    422: {"model": ErrorBody},
}


@router.get("/games", tags=["games"])
def api_games() -> list[GameInfo]:
    """The games: seats and built-in bots."""
    return games()


@router.get("/ladders/{game}", tags=["ladders"], responses={200: {"model": Ladder}, **RESPONSES})
async def api_ladder(game: str, ladders: Cache) -> Response:
    """The game's ladder: the last batch fit (Elo +- 95%), bots without a fit yet by live Elo."""
    game = known_game(game)
    current = await ladders.revisions.current(game)
    body = await ladders.cached(
        "json", game, current, lambda: ladders.cached_ladder(game, current).model_dump_json().encode()
    )
    return Response(body, media_type="application/json")


@router.get("/ladders/{game}/revision", tags=["ladders"], responses=RESPONSES)
async def api_ladder_revision(game: str, ladders: Cache) -> LadderRevision:
    """The game's ladder revision, bumped by every change to its ratings: a cheap check of whether
    the ladder moved since it was read (the ladder page asks every few seconds)."""
    game = known_game(game)
    return LadderRevision(game=game, revision=await ladders.revisions.current(game))


@router.post("/ladders/{game}/refit", tags=["ladders"], responses=RESPONSES)
def api_refit(game: str, session: Db, user: Annotated[User, Depends(token_user)], store: Storage) -> Ladder:
    """Admin: refit the ladder of record from every stored result now."""
    game = known_game(game)
    if not user.is_admin:
        raise HTTPException(403, "only an admin may refit a ladder")
    refit(store.engine, session, game)
    session.flush()
    return ladder(session, game)


@router.get("/bots/{bot_id}", tags=["bots"], responses=RESPONSES)
def api_bot(bot_id: Id, session: Db, who: Who, ladders: Cache, page_number: MatchesPage = 1) -> BotPage:
    """A bot: its place on the ladder, versions with their ratings, rating history, its record
    against each other bot, and its matches, newest first, 30 a page (validation logs for its
    owner only)."""
    return ladders.bot_page(session, bot_id, who.user, page_number)


@router.post(
    "/bots/{bot_id}/challenges",
    tags=["bots"],
    responses={**RESPONSES, 429: {"model": ErrorBody, "description": "over the quota of challenges"}},
)
def api_challenge(
    bot_id: Id,
    request: challenges.ChallengeRequest,
    session: Db,
    user: Annotated[User, Depends(token_user)],
    store: Storage,
) -> challenges.Challenge:
    """Challenge: a match of this bot against ``opponent``, both your own or open to others, the
    game's default config, duplicate deals, unrated; it starts at once (watch it at
    ``/matches/{match_id}``) and lands on both bots' pages."""
    tournament_id = challenges.start(store, session, user, bot_id, request)
    with store.session() as own:
        return challenges.challenge(own, tournament_id)


@router.put("/bots/{bot_id}/open", tags=["bots"], responses=RESPONSES)
def api_open(
    bot_id: Id, request: challenges.OpenRequest, session: Db, user: Annotated[User, Depends(token_user)]
) -> challenges.BotSettings:
    """The owner opens their bot to others (anyone may challenge it and play against it), or closes it."""
    return challenges.set_open(session, user, bot_id, request)


@router.post(
    "/abtests",
    tags=["abtests"],
    responses={**RESPONSES, 429: {"model": ErrorBody, "description": "over the quota of tournaments"}},
)
def api_abtest(
    request: abtests.AbTestRequest, session: Db, user: Annotated[User, Depends(token_user)], store: Storage
) -> abtests.AbTestView:
    """Start an A/B test: duplicate-deal matches of ``new`` against ``old`` (your own bots, or open to
    others), unrated, until a sequential probability ratio test between H0 (``new`` is ``elo0`` Elo
    better) and H1 (``elo1``) stops, or at ``max_games``; it counts as one of your tournaments.
    Follow it at ``GET /abtests/{id}`` (its page: ``/abtests/{id}``)."""
    test_id = abtests.start(store, session, user, request)
    with store.session() as own:
        return abtests.abtest_view(own, test_id)


@router.get("/abtests/{test_id}", tags=["abtests"], responses=RESPONSES)
def api_abtest_status(test_id: Id, session: Db) -> abtests.AbTestView:
    """An A/B test: its verdict (empty while it runs), games, LLR and bounds, NEW's Elo difference
    with its 95% interval, and the LLR after each landed match."""
    return abtests.abtest_view(session, test_id)


@router.get("/versions/{version_id}/source", tags=["bots"], responses=RESPONSES)
def api_source(version_id: Id, session: Db, who: Who, settings: Config) -> Source:
    """A submitted version's files: its owner (and admins) only."""
    return source(session, version_id, who.user, settings.home)


@router.post("/bots", tags=["bots"], responses=RESPONSES)
def api_submit(
    session: Db,
    user: Annotated[User, Depends(token_user)],
    game: Annotated[str, Form()],
    name: Annotated[str, Form()],
    file: Annotated[UploadFile, File(description="a .py file or a .zip")],
    actions: Act,
    entry: Annotated[str, Form()] = "",
) -> SubmitResult:
    """Submit a bot (a new version if the name is yours already). The reply comes at once; the
    validation match then runs in the sandbox, and the bot's ``validation`` turns from
    ``validating`` to ``passed`` (it may play) or ``failed`` (``GET /bots/{bot_id}``)."""
    return actions.submit_upload(session, user, game, name, file, entry or None)


@router.get("/matches/{match_id}", tags=["matches"], responses=RESPONSES)
def api_match(match_id: Id, session: Db, who: Who) -> MatchPage:
    """A match: status, seats with their results, every game's finish order."""
    return match_page(session, match_id, who.user)


@router.get("/matches/{match_id}/replay", tags=["matches"], responses=RESPONSES)
def api_replay_file(match_id: Id, session: Db, settings: Config) -> Response:
    """A finished match's replay file (JSON, every game; ``arena replay show`` reads it)."""
    data = replay_file(session, match_id, settings.home)
    attachment = {"Content-Disposition": f'attachment; filename="{file_name(match_id)}"'}
    return Response(data, media_type="application/json", headers=attachment)


@router.get("/matches/{match_id}/replay/{game_index}", tags=["matches"], responses=RESPONSES)
def api_replay(
    match_id: Id,
    game_index: Index,
    session: Db,
    settings: Config,
    seat: Annotated[int | None, Query(ge=0, le=64)] = None,
) -> ReplayView:
    """Every step of one game with the whole state after it, and with ``seat`` what that seat saw,
    once the match is over; while it runs, the games finished so far in the public view only."""
    return replay_view(session, match_id, game_index, settings.home, seat)


@router.get("/matches/{match_id}/logs/{agent}", tags=["matches"], responses=RESPONSES)
def api_log(match_id: Id, agent: Index, session: Db, who: Who) -> PlainTextResponse:
    """A seat's log (the bot's stderr): its owner (and admins) only."""
    return PlainTextResponse(match_log(session, match_id, agent, who.user))


@router.get("/tournaments", tags=["tournaments"])
def api_tournaments(session: Db) -> list[TournamentLine]:
    """The 50 newest tournaments with their progress."""
    return tournaments(session)


@router.get("/tournaments/{tournament_id}", tags=["tournaments"], responses=RESPONSES)
def api_tournament(tournament_id: Id, session: Db) -> TournamentPage:
    """A tournament: progress, standings and its matches."""
    return tournament_page(session, tournament_id)


@router.post("/tournaments", tags=["tournaments"], responses=RESPONSES)
def api_create_tournament(
    request: TournamentRequest,
    session: Db,
    user: Annotated[User, Depends(token_user)],
    actions: Act,
    store: Storage,
) -> TournamentLine:
    """Create a tournament and start running it."""
    tournament_id = actions.start_tournament(session, TournamentSpec(**request.model_dump()), user)
    with store.session() as own:
        return tournament_page(own, tournament_id)


@router.post(
    "/tournaments/{tournament_id}/cancel",
    tags=["tournaments"],
    responses={**RESPONSES, 409: {"model": ErrorBody, "description": "finished, or a ladder's"}},
)
def api_cancel_tournament(
    tournament_id: Id, session: Db, user: Annotated[User, Depends(token_user)]
) -> TournamentPage:
    """Cancel a tournament (its creator or an admin): every match of it not yet done, pending,
    running or failed, is void at once and never played or counted; done matches stay."""
    cancel(session, tournament_id, user)
    session.flush()
    return tournament_page(session, tournament_id)


@router.get("/me", tags=["users"], responses=RESPONSES)
def api_me(session: Db, user: Annotated[User, Depends(signed_in)]) -> Me:
    """Who you are (by token or browser session) and your bots."""
    return me(session, user)
