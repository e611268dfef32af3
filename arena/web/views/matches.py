"""A match as its page and the API show it, and as a line of the lists on bot and tournament pages.

A match's page has its seats with their results, its games (as recorded, or so far while it runs)
and its seats' logs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlalchemy.orm import Session

from arena.ladder.standing import KIND as LADDER
from arena.runner import replay
from arena.runner.deals import deal_index
from arena.store import blobs
from arena.store.blobs import BlobError
from arena.store.live import load_live
from arena.store.models import BotVersion, Match, MatchStatus, User
from arena.store.queries.matches import game_outcomes, versions_by_id
from arena.text import escape_controls
from arena.web.views.common import Forbidden, NotFound, Timestamp, can_see_private


class MatchLine(BaseModel):
    id: int
    tournament_id: int
    ladder: bool
    """A match of the living ladder (its game's standing tournament), not of a tournament someone ran."""
    agent: int | None
    """The bot's seat in the match (its log: ``/matches/{id}/logs/{agent}``), on bot pages."""
    status: str
    finished_at: Timestamp | None
    opponents: list[str]
    """On bot pages: the other bots of the match; on tournament pages: every bot, in seat order."""
    games: int
    wins: int
    score: float


class SeatInfo(BaseModel):
    agent: int
    bot_id: int
    version_id: int
    bot: str
    owner: str
    games: int | None
    wins: int | None
    score: float | None
    mean_rank: float | None
    statuses: dict[str, int]
    log_visible: bool
    """Whether the viewer may read this seat's log (its bot's owner or an admin)."""


class GameLine(BaseModel):
    index: int
    deal: int
    seats: list[str]
    """Bot names in seat order."""
    ranks: list[int]
    statuses: list[str]


class MatchPage(BaseModel):
    id: int
    tournament_id: int
    ladder: bool
    """A match of the living ladder (its game's standing tournament), not of a tournament someone ran."""
    game: str
    status: str
    attempts: int
    seed: str | None
    """The match seed, in decimal (128 bits: too wide for a JSON number), once the match is over;
    until then it is secret, as every deal follows from it."""
    started_at: Timestamp | None
    finished_at: Timestamp | None
    error: str
    seats: list[SeatInfo]
    games: list[GameLine]
    replay_available: bool
    """Games can be replayed: every game with every card once the match is over; while it runs,
    the games finished so far in the public view only."""
    reveal: bool
    """The match is over: replays show every card and what each seat saw."""


def match_page(session: Session, match_id: int, viewer: User | None) -> MatchPage:
    match = session.get(Match, match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    results = {seat.agent: seat for seat in match.seats}
    versions = versions_by_id(session, match.entrants)
    seats = []
    for agent, version_id in enumerate(match.entrants):
        version = versions[version_id]
        result = results.get(agent)
        seats.append(
            SeatInfo(
                agent=agent,
                bot_id=version.bot_id,
                version_id=version_id,
                bot=version.bot.name,
                owner=version.bot.owner.name if version.bot.owner else "builtin",
                games=result.games if result else None,
                wins=result.wins if result else None,
                score=result.score if result else None,
                mean_rank=result.mean_rank if result else None,
                statuses=result.statuses if result else {},
                log_visible=can_see_private(viewer, version.bot) and agent < len(match.log_blobs),
            )
        )
    running, done = match.status == MatchStatus.RUNNING, match.status == MatchStatus.DONE
    games = live_games(live_replay(session, match)) if running else stored_games(session, match, versions)
    return MatchPage(
        id=match.id,
        tournament_id=match.tournament_id,
        ladder=match.tournament.kind == LADDER,
        game=match.tournament.game,
        status=match.status,
        attempts=match.attempts,
        seed=str(match.seed) if done else None,
        started_at=match.started_at,
        finished_at=match.finished_at,
        error=match.error,
        seats=seats,
        games=games,
        replay_available=bool(games) and (running or (done and bool(match.replay_blob))),
        reveal=done,
    )


def stored_games(session: Session, match: Match, versions: dict[int, BotVersion]) -> list[GameLine]:
    """A finished match's games, as recorded (a running match has none stored yet)."""
    outcomes = game_outcomes(session, match.id)
    names = {version_id: version.bot.name for version_id, version in versions.items()}
    return [
        GameLine(
            index=outcome.game_index,
            deal=outcome.deal,
            seats=[names[version_id] for version_id in outcome.seats],
            ranks=outcome.ranks,
            statuses=outcome.statuses,
        )
        for outcome in outcomes
    ]


def live_replay(session: Session, match: Match) -> dict[str, Any] | None:
    """The running match's games finished so far, or None (none yet, or lines that cannot be read:
    the page then shows the match without them)."""
    try:
        return load_live(session, match)
    except replay.ReplayError:
        return None


def live_games(data: dict[str, Any] | None) -> list[GameLine]:
    if data is None:
        return []
    names = [seat["name"] for seat in data["seats"]]
    return [
        GameLine(
            index=game["index"],
            deal=deal_index(game["index"], len(names), data["duplicate"]),
            seats=[names[agent] for agent in game["seating"]],
            ranks=game["result"]["ranks"],
            statuses=game["statuses"],
        )
        for game in data["games"]
    ]


def match_log(session: Session, match_id: int, agent: int, viewer: User | None) -> str:
    match = session.get(Match, match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    if not 0 <= agent < len(match.entrants):
        raise NotFound(f"match {match_id} has seats 0..{len(match.entrants) - 1}, not {agent}")
    version = session.get(BotVersion, match.entrants[agent])
    assert version is not None
    if not can_see_private(viewer, version.bot):
        raise Forbidden("only the bot's owner (or an admin) may read its logs")
    if agent >= len(match.log_blobs):
        raise NotFound(unrecorded(match, "logs"))
    # Read from the store each time, without a copy kept: a log is at most 64 KiB, seldom read.
    return escape_controls(stored(session, match.log_blobs[agent], None).decode(errors="replace"))


def unrecorded(match: Match, what: str) -> str:
    """Why ``match`` has no ``what`` (its replay, its logs), in a line."""
    if match.status in (MatchStatus.PENDING, MatchStatus.RUNNING):
        return f"match {match.id} is {match.status}: its {what} will be there once it is over"
    if match.status == MatchStatus.DONE:
        return f"match {match.id} is done, but the store kept no {what} of it"
    return f"match {match.id} is {match.status}: it was not played to its end, so it has no {what}"


def stored(session: Session, digest: str, home: Path | None) -> bytes:
    """A blob a page shows (copied under ``home``, if given); one that cannot be had is not found."""
    try:
        return blobs.get(session, digest, home)
    except BlobError as error:
        raise NotFound(str(error)) from None
