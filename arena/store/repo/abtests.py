"""Writes of A/B tests: a test started on its tournament, and its verdict."""

from __future__ import annotations

from sqlalchemy.orm import Session

from arena.store.models import AbTest, now


def start_ab_test(
    session: Session,
    tournament_id: int,
    *,
    new_version_id: int,
    old_version_id: int,
    elo0: float,
    elo1: float,
    alpha: float,
    beta: float,
    max_games: int,
    panel: list[int],
) -> AbTest:
    """A running test (no verdict yet) of NEW against OLD, its matches in tournament ``tournament_id``."""
    test = AbTest(
        tournament_id=tournament_id,
        new_version_id=new_version_id,
        old_version_id=old_version_id,
        elo0=elo0,
        elo1=elo1,
        alpha=alpha,
        beta=beta,
        max_games=max_games,
        panel=panel,
        verdict="",
    )
    session.add(test)
    session.flush()
    return test


def end_ab_test(test: AbTest, verdict: str) -> None:
    test.verdict = verdict
    test.finished_at = now()
