"""Reads of matches: a match's seats' versions, its games as recorded, and whether matches are over."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.models import BotVersion, GameOutcome, Match, MatchStatus


def versions_by_id(session: Session, version_ids: Iterable[int]) -> dict[int, BotVersion]:
    return {v.id: v for v in session.scalars(select(BotVersion).where(BotVersion.id.in_(version_ids)))}


def game_outcomes(session: Session, match_id: int) -> Sequence[GameOutcome]:
    """A recorded match's games, in the order played."""
    return session.scalars(
        select(GameOutcome).where(GameOutcome.match_id == match_id).order_by(GameOutcome.game_index)
    ).all()


def any_unfinished(session: Session, match_ids: list[int]) -> bool:
    """Whether one of these matches is pending or running."""
    left = session.scalar(
        select(Match.id)
        .where(Match.id.in_(match_ids), Match.status.in_([MatchStatus.PENDING, MatchStatus.RUNNING]))
        .limit(1)
    )
    return left is not None
