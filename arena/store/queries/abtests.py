"""Reads of A/B tests: the tests still running, and the games of a test's landed matches."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Row, select
from sqlalchemy.orm import Session

from arena.store.models import AbTest, GameOutcome, Match, MatchStatus


def running_tests(session: Session, only: int | None = None) -> Sequence[AbTest]:
    """The tests with no verdict yet (or the one of tournament ``only``, if it has none)."""
    query = select(AbTest).where(AbTest.verdict == "")
    if only is not None:
        query = query.where(AbTest.tournament_id == only)
    return session.scalars(query).all()


def landed_games(
    session: Session, tournament_id: int
) -> Sequence[Row[int, datetime | None, int, int, list[int]]]:
    """Every game of the tournament's done matches, in the order the matches landed: its match's
    index and finish, its own index, its deal and its ranks."""
    return session.execute(
        select(Match.index, Match.finished_at, GameOutcome.game_index, GameOutcome.deal, GameOutcome.ranks)
        .join(Match, GameOutcome.match_id == Match.id)
        .where(Match.tournament_id == tournament_id, Match.status == MatchStatus.DONE)
        .order_by(Match.finished_at, Match.id, GameOutcome.game_index)
    ).all()
