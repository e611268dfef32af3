"""How much a user may have running: a bound on the tournaments each user keeps unfinished.

The matches themselves all go through the one scheduler and its pool (``arena serve --workers N``
plays N at a time, whoever started them); this bound keeps one user from queueing so much that
everyone else's tournaments wait behind theirs. Admins are not bound.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store.models import Match, MatchStatus, Tournament, User

MAX_UNFINISHED = 2
"""Tournaments a user who is not an admin may have with matches pending or running."""


class QuotaError(Exception):
    """The user already has as much running as they may."""


def unfinished(session: Session, user: User) -> int:
    """How many of ``user``'s tournaments still have matches pending or running."""
    query = (
        select(func.count(func.distinct(Match.tournament_id)))
        .join(Tournament, Match.tournament_id == Tournament.id)
        .where(
            Tournament.created_by == user.id,
            Match.status.in_([MatchStatus.PENDING, MatchStatus.RUNNING]),
        )
    )
    return session.scalar(query) or 0


def check_room(session: Session, user: User) -> None:
    """``QuotaError`` if ``user`` may not start another tournament now."""
    if user.is_admin:
        return
    if unfinished(session, user) >= MAX_UNFINISHED:
        raise QuotaError(
            f"you have {MAX_UNFINISHED} unfinished tournaments, as many as a user may have at a time: "
            "start another once one of them is over"
        )
