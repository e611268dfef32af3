"""Reads of challenges: a bot's newest challenges, either side, with each seat's figures."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from arena.store.models import Bot, BotVersion, Match, SeatResult, Tournament, User


def recent_challenges(
    session: Session, kind: str, game: str, version_ids: list[int], unfinished: Collection[str], limit: int
) -> Sequence[Row[Match, Tournament, str | None]]:
    """The newest ``limit`` matches of tournaments of ``kind`` (challenges) of ``game`` that one of
    ``version_ids`` played (found by its seats' results) or is seated in while ``unfinished``, newest
    first: each with its tournament and the name of the user who asked for it (None: the operator)."""
    done = select(SeatResult.match_id).where(SeatResult.bot_version_id.in_(version_ids))
    query = (
        select(Match.id, Match.entrants)
        .join(Tournament)
        .where(Tournament.kind == kind, Tournament.game == game, Match.status.in_(unfinished))
    )
    mine = set(version_ids)
    waiting = [match_id for match_id, entrants in session.execute(query) if mine & set(entrants)]
    return session.execute(
        select(Match, Tournament, User.name)
        .join(Tournament, Match.tournament_id == Tournament.id)
        .outerjoin(User, Tournament.created_by == User.id)
        .where(Tournament.kind == kind, Match.id.in_(done) | Match.id.in_(waiting))
        .order_by(Match.id.desc())
        .limit(limit)
    ).all()


def bots_of_versions(session: Session, version_ids: Collection[int]) -> dict[int, int]:
    """Each version's bot id."""
    query = select(BotVersion.id, BotVersion.bot_id).where(BotVersion.id.in_(version_ids))
    return {version: bot_id for version, bot_id in session.execute(query)}


def bot_names(session: Session, bot_ids: Collection[int]) -> dict[int, str]:
    query = select(Bot.id, Bot.name).where(Bot.id.in_(bot_ids))
    return {bot_id: name for bot_id, name in session.execute(query)}


def seat_figures(session: Session, match_ids: list[int]) -> Sequence[Row[int, int, int, float]]:
    """Each seat's match id, version id, games and score, the last seat first."""
    return session.execute(
        select(SeatResult.match_id, SeatResult.bot_version_id, SeatResult.games, SeatResult.score)
        .where(SeatResult.match_id.in_(match_ids))
        .order_by(SeatResult.agent.desc())
    ).all()
