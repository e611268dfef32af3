"""Tournaments: the list of them, one with its standings and matches, and the bots a new one may
enter."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from sqlalchemy.orm import Session

from arena.bots import builtin_names
from arena.ladder.standing import KIND as LADDER
from arena.ratings.rated import is_rated
from arena.store.models import MatchStatus, Tournament, User
from arena.store.queries.bots import validated_bot_names, version_names
from arena.store.queries.tournaments import listed, listed_count, matches_of, progress, standings
from arena.tournament import quota
from arena.tournament.scheduler import held_up_by
from arena.web.views.common import NotFound, Timestamp, page_count
from arena.web.views.matches import MatchLine


class TournamentLine(BaseModel):
    id: int
    game: str
    kind: str
    games_per_match: int
    duplicate: bool
    created_at: Timestamp
    creator: str | None
    counts: dict[str, int]
    """Matches per status."""
    total: int
    finished: int
    status: Literal["running", "finished", "cancelled"]
    """``cancelled``: its creator or an admin cancelled it, and its unfinished matches are void."""
    rated: bool
    """Its matches move the game's ladder (``arena.ratings.rated``); an unrated tournament has only
    its own standings."""


class Standing(BaseModel):
    bot: str
    bot_id: int
    version: int
    matches: int
    games: int
    wins: int
    score: float
    mean_rank: float
    faults: dict[str, int]


class TournamentPage(TournamentLine):
    ladder: bool
    """The living ladder's standing tournament of its game: it grows a match at a time for as long as
    the ladder runs, the lists of tournaments leave it out, and ``matches`` holds only its newest
    ``LADDER_MATCHES``, newest first."""
    standings: list[Standing]
    matches: list[MatchLine]
    held_up_by: str
    """Why its pending matches may not run (no scheduler, no worker, no broker); "" if nothing."""


def _line(session: Session, tournament: Tournament) -> TournamentLine:
    counts = progress(session, tournament.id)
    creator = session.get(User, tournament.created_by) if tournament.created_by else None
    return TournamentLine(
        id=tournament.id,
        game=tournament.game,
        kind=tournament.kind,
        games_per_match=tournament.games_per_match,
        duplicate=tournament.duplicate,
        created_at=tournament.created_at,
        creator=creator.name if creator else None,
        counts={status: count for status, count in counts.items() if count},
        total=sum(counts.values()),
        finished=sum(counts.values()) - counts[MatchStatus.PENDING] - counts[MatchStatus.RUNNING],
        status=_status(counts),
        rated=is_rated(tournament),
    )


def _status(counts: dict[str, int]) -> Literal["running", "finished", "cancelled"]:
    if counts[MatchStatus.VOID]:  # only cancelling voids a tournament's matches
        return "cancelled"
    return "running" if counts[MatchStatus.PENDING] or counts[MatchStatus.RUNNING] else "finished"


LADDER_MATCHES = 100
"""The matches a page of a ladder's standing tournament shows: its newest."""


UNLISTED = (LADDER, quota.CHALLENGE, quota.PLAY)
"""What the tournaments list leaves out: the ladder's standing tournaments (they never end), and
challenges and people's games (each shows on its bots' pages, and a game on its player's)."""


def tournaments(session: Session, limit: int = 50) -> list[TournamentLine]:
    """The ``limit`` newest tournaments, leaving out what is not a user's tournament (``UNLISTED``)."""
    return [_line(session, tournament) for tournament in listed(session, UNLISTED, limit)]


TOURNAMENTS_PAGE = 20
"""Tournaments per page of the tournaments page."""


class TournamentList(BaseModel):
    tournaments: list[TournamentLine]
    """Page ``page`` of ``pages``, newest first."""
    count: int
    page: int
    pages: int


def tournament_list(session: Session, page: int, size: int = TOURNAMENTS_PAGE) -> TournamentList:
    """Page ``page`` of the tournaments (``size`` a page, newest first; ``UNLISTED`` left out, as in
    ``tournaments``)."""
    count = listed_count(session, UNLISTED)
    pages = page_count(count, size)
    if page > pages:
        raise NotFound(f"the tournaments fill {pages} page(s), not {page}")
    rows = listed(session, UNLISTED, size, (page - 1) * size)
    return TournamentList(
        tournaments=[_line(session, tournament) for tournament in rows], count=count, page=page, pages=pages
    )


def tournament_page(session: Session, tournament_id: int) -> TournamentPage:
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise NotFound(f"no tournament {tournament_id}")
    is_ladder = tournament.kind == LADDER
    # The counts before the matches: a match only moves on (pending, running, done), so a page
    # that counts every match finished lists every match finished, though its two reads are not
    # one snapshot (the other way round, a match seen running could be counted finished).
    line = _line(session, tournament)
    matches = matches_of(session, tournament.id, LADDER_MATCHES if is_ladder else None)
    names = version_names(session, {e for match in matches for e in match.entrants})
    return TournamentPage(
        **line.model_dump(),
        ladder=is_ladder,
        held_up_by=held_up_by(session) if line.finished < line.total else "",
        standings=[Standing(**row) for row in standings(session, tournament_id)],
        matches=[
            MatchLine(
                id=match.id,
                tournament_id=tournament.id,
                ladder=is_ladder,
                agent=None,
                status=match.status,
                finished_at=match.finished_at,
                opponents=[names[entrant] for entrant in match.entrants],
                games=tournament.games_per_match,
                wins=0,
                score=0.0,
            )
            for match in matches
        ],
    )


def playable_bots(session: Session, game: str) -> list[str]:
    """Names a tournament of ``game`` may enter: the built-ins and bots with a validated version."""
    return [f"builtin:{name}" for name in builtin_names(game)] + validated_bot_names(session, game)
