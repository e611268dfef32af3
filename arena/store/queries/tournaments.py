"""Reads of tournaments: the lists of them, their matches, their matches per status, and their
standings."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Row, func, select
from sqlalchemy.orm import Session

from arena.store.models import Bot, BotVersion, Match, MatchStatus, SeatResult, Tournament


def listed_count(session: Session, leave_out: Collection[str]) -> int:
    """How many tournaments there are of kinds other than ``leave_out``."""
    query = select(func.count()).select_from(Tournament).where(Tournament.kind.not_in(leave_out))
    return session.scalar(query) or 0


def listed(session: Session, leave_out: Collection[str], limit: int, offset: int = 0) -> Sequence[Tournament]:
    """The tournaments of kinds other than ``leave_out``, newest first: ``limit`` from ``offset``."""
    query = select(Tournament).where(Tournament.kind.not_in(leave_out)).order_by(Tournament.id.desc())
    if offset:
        query = query.offset(offset)
    return session.scalars(query.limit(limit)).all()


def matches_of(session: Session, tournament_id: int, newest: int | None = None) -> Sequence[Match]:
    """The tournament's matches in order, or with ``newest`` its newest that many, newest first."""
    query = select(Match).where(Match.tournament_id == tournament_id)
    if newest is not None:
        return session.scalars(query.order_by(Match.index.desc()).limit(newest)).all()
    return session.scalars(query.order_by(Match.index)).all()


def only_match(session: Session, tournament_id: int) -> Match:
    """The match of a tournament of one match (a challenge)."""
    return session.scalars(select(Match).where(Match.tournament_id == tournament_id)).one()


def progress(session: Session, tournament_id: int) -> dict[str, int]:
    """Matches of the tournament per status (counted by the database: the ladder's grows for ever)."""
    counts = {str(status): 0 for status in MatchStatus}
    query = (
        select(Match.status, func.count()).where(Match.tournament_id == tournament_id).group_by(Match.status)
    )
    for status, count in session.execute(query).all():
        counts[status] = count
    return counts


def standings(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Per bot version: matches, games, wins, score, mean rank and fault statuses, best first.

    A version counts once per match however many seats it held: a kozel team is one bot in two
    seats that share every game's result, so one of its seats stands for it (the games the ladder
    counts), while the faults of all its seats add up."""
    rows: dict[int, dict[str, Any]] = {}
    counted: set[tuple[int, int]] = set()
    query = (
        select(SeatResult, BotVersion, Bot)
        .join(Match, SeatResult.match_id == Match.id)
        .join(BotVersion, SeatResult.bot_version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .where(Match.tournament_id == tournament_id, Match.status == MatchStatus.DONE)
        .order_by(SeatResult.match_id, SeatResult.agent)
    )
    for seat, version, bot in session.execute(query):
        row = rows.setdefault(
            version.id,
            {
                "bot": bot.name,
                "bot_id": bot.id,
                "version": version.id,
                "matches": 0,
                "games": 0,
                "wins": 0,
                "score": 0.0,
                "rank_sum": 0.0,
                "faults": {},
            },
        )
        for status, count in seat.statuses.items():
            if status != "ok":
                row["faults"][status] = row["faults"].get(status, 0) + count
        if (seat.match_id, version.id) in counted:  # the same team's other seat
            continue
        counted.add((seat.match_id, version.id))
        row["matches"] += 1
        row["games"] += seat.games
        row["wins"] += seat.wins
        row["score"] += seat.score
        row["rank_sum"] += seat.mean_rank * seat.games
    table = []
    for row in rows.values():
        row["mean_rank"] = row.pop("rank_sum") / row["games"] if row["games"] else 0.0
        table.append(row)
    return sorted(table, key=lambda row: (-row["score"], row["mean_rank"], row["bot"]))


def running_of(session: Session, kind: str, creator_id: int) -> int:
    """How many matches of the tournaments of ``kind`` that user ``creator_id`` created are running."""
    query = (
        select(func.count())
        .select_from(Match)
        .join(Tournament, Match.tournament_id == Tournament.id)
        .where(
            Tournament.kind == kind, Tournament.created_by == creator_id, Match.status == MatchStatus.RUNNING
        )
    )
    return session.scalar(query) or 0


def has_match_in(session: Session, tournament_id: int, status: str) -> bool:
    """Whether one of the tournament's matches is in ``status``."""
    query = select(Match.id).where(Match.tournament_id == tournament_id, Match.status == status)
    return session.scalar(query) is not None


def unfinished_count(
    session: Session, creator_id: int, *, kind: str | None, leave_out: Collection[str]
) -> int:
    """How many tournaments user ``creator_id`` created of ``kind`` (None: of kinds other than
    ``leave_out``) have matches pending or running."""
    query = (
        select(func.count(func.distinct(Match.tournament_id)))
        .join(Tournament, Match.tournament_id == Tournament.id)
        .where(
            Tournament.created_by == creator_id,
            (Tournament.kind == kind) if kind is not None else Tournament.kind.not_in(leave_out),
            Match.status.in_([MatchStatus.PENDING, MatchStatus.RUNNING]),
        )
    )
    return session.scalar(query) or 0


def first_of_kind(session: Session, kind: str, game: str, game_version: int) -> Tournament | None:
    """The oldest tournament of ``kind`` of ``game`` at ``game_version``."""
    return session.scalar(
        select(Tournament)
        .where(Tournament.kind == kind, Tournament.game == game, Tournament.game_version == game_version)
        .order_by(Tournament.id)
        .limit(1)
    )


def unfinished_seatings(session: Session, kind: str) -> Sequence[Row[str, list[int]]]:
    """The game and entrants of each pending or running match of the tournaments of ``kind``."""
    return session.execute(
        select(Tournament.game, Match.entrants)
        .join(Tournament, Match.tournament_id == Tournament.id)
        .where(Tournament.kind == kind, Match.status.in_([MatchStatus.PENDING, MatchStatus.RUNNING]))
    ).all()


def match_statuses(session: Session, tournament_id: int) -> list[str]:
    """The status of each of the tournament's matches."""
    return [
        str(status)
        for status in session.scalars(select(Match.status).where(Match.tournament_id == tournament_id))
    ]


def unfinished_matches(session: Session, only: int | None = None) -> Sequence[Row[int, int, str, str]]:
    """Every pending or running match (or those of tournament ``only``) in the order of their
    tournaments and their own: its id, its tournament's id, its status and its tournament's kind."""
    query = (
        select(Match.id, Match.tournament_id, Match.status, Tournament.kind)
        .join(Tournament, Match.tournament_id == Tournament.id)
        .where(Match.status.in_([MatchStatus.PENDING, MatchStatus.RUNNING]))
    )
    if only is not None:
        query = query.where(Match.tournament_id == only)
    return session.execute(query.order_by(Match.tournament_id, Match.index)).all()


def not_done(session: Session, tournament_id: int) -> Sequence[Match]:
    """The tournament's matches that are not done, in order."""
    return session.scalars(
        select(Match)
        .where(Match.tournament_id == tournament_id, Match.status != MatchStatus.DONE)
        .order_by(Match.index)
    ).all()
