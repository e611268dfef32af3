"""Challenges in the web app: starting one, and a bot's challenges as its page lists them.

One is started from the API or the bot page's form. Here too: the bots a user may pick as an
opponent, and opening a bot to others.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import HTTPException
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.store.db import Store, once_more_on_conflict
from arena.store.models import Bot, MatchStatus, User
from arena.store.queries import challenges as queries
from arena.store.queries.bots import validated_bot_names
from arena.store.queries.tournaments import only_match
from arena.tournament import challenges, quota
from arena.web.tournaments import MAX_ID, BotName
from arena.web.views.common import NotFound, Timestamp

SHOWN = 20
"""A bot page lists its newest challenges, up to this many."""
OPPONENTS = 500
"""The most bots the challenge form offers (built-ins first, then by name)."""
UNFINISHED = (MatchStatus.PENDING, MatchStatus.RUNNING)


class ChallengeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    opponent: Annotated[StrictInt, Field(ge=1, le=MAX_ID)] | BotName
    """The bot to play: its id, or its name in the challenging bot's game (``builtin:NAME``)."""
    games: Annotated[
        StrictInt,
        Field(
            ge=1,
            le=challenges.MAX_GAMES,
            description="Games, a multiple of the seats (2; kozel 4): duplicate deals play every deal "
            "in every seating.",
        ),
    ] = challenges.DEFAULT_GAMES


class Challenge(BaseModel):
    """A challenge: its tournament and its one match (watch it live at ``/matches/{match_id}``)."""

    tournament_id: int
    match_id: int
    status: str
    rated: bool
    """Always false: a challenge moves no ladder."""


class ChallengeLine(BaseModel):
    """A challenge on a bot page: the other bot, and each side's result once it is done."""

    tournament_id: int
    match_id: int
    status: str
    challenger: str
    """The user who asked for it."""
    opponent_id: int
    opponent: str
    games: int | None
    score: float | None
    """This bot's score over the match (its first seat's, as a kozel side's two seats share it)."""
    opponent_score: float | None
    created_at: Timestamp


class OpenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    open_to_others: StrictBool
    """Others may challenge it and seat it against themselves."""


class BotSettings(BaseModel):
    id: int
    name: str
    open_to_others: bool


def start(store: Store, request_session: Session, user: User, bot_id: int, request: ChallengeRequest) -> int:
    """Create ``user``'s challenge (the scheduler plays it at once); its tournament's id. Errors as
    the app answers them: 404 unknown bot, 403 not open, 400 other game or games, 429 over quota."""
    request_session.commit()  # as ``actions.release``: hold no connection while creating in another

    def create() -> int:
        with store.session() as session:
            creator = session.merge(user)
            try:
                return challenges.create_challenge(
                    session, creator, bot_id, request.opponent, request.games
                ).id
            except challenges.UnknownBot as error:
                raise NotFound(str(error)) from None
            except quota.QuotaError as error:
                raise HTTPException(429, str(error)) from None

    return once_more_on_conflict(create)  # a built-in may be stored by a concurrent request first


def challenge(session: Session, tournament_id: int) -> Challenge:
    match = only_match(session, tournament_id)
    return Challenge(
        tournament_id=tournament_id, match_id=match.id, status=match.status, rated=match.tournament.rated
    )


def set_open(session: Session, user: User, bot_id: int, request: OpenRequest) -> BotSettings:
    try:
        bot = challenges.set_open(session, user, bot_id, request.open_to_others)
    except challenges.UnknownBot as error:
        raise NotFound(str(error)) from None
    return BotSettings(id=bot.id, name=bot.name, open_to_others=bot.open_to_others)


def bot_challenges(session: Session, bot: Bot, version_ids: list[int]) -> list[ChallengeLine]:
    """The bot's newest challenges (``SHOWN``), either side: those done (found by its seats'
    results) and those waiting or running (few: every user has at most ``quota.MAX_CHALLENGES``)."""
    rows = queries.recent_challenges(session, quota.CHALLENGE, bot.game, version_ids, UNFINISHED, SHOWN)
    entrants = {entrant for match, _, _ in rows for entrant in match.entrants}
    bots = queries.bots_of_versions(session, entrants)
    names = queries.bot_names(session, set(bots.values()))
    seats = queries.seat_figures(session, [match.id for match, _, _ in rows])  # the first seat's kept
    results = {(match_id, bots[version]): (games, score) for match_id, version, games, score in seats}
    lines = []
    for match, tournament, challenger in rows:
        other = next((bots[entrant] for entrant in match.entrants if bots[entrant] != bot.id), bot.id)
        own, theirs = results.get((match.id, bot.id)), results.get((match.id, other))
        lines.append(
            ChallengeLine(
                tournament_id=tournament.id,
                match_id=match.id,
                status=match.status,
                challenger=challenger or "operator",
                opponent_id=other,
                opponent=names[other],
                games=own[0] if own else None,
                score=own[1] if own else None,
                opponent_score=theirs[1] if theirs else None,
                created_at=tournament.created_at,
            )
        )
    return lines


def opponents(session: Session, user: User | None, bot_id: int) -> list[str]:
    """Names of the bots ``user`` may pick to play bot ``bot_id``: the built-ins, their own bots and
    the bots open to others, each with a version that passed validation (``OPPONENTS`` at most);
    none if ``user`` may not challenge with that bot."""
    bot = session.get(Bot, bot_id)
    if bot is None or user is None or not challenges.may_use(user, bot):
        return []
    builtins = [f"builtin:{name}" for name in get_game(bot.game).builtin_bots]
    others = validated_bot_names(session, bot.game, usable_by=user.id, besides=bot.id, limit=OPPONENTS)
    return [name for name in builtins if name != bot.name] + others
