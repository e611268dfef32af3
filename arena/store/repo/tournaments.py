"""Writes of tournaments: a new one with its pending matches, and its failed matches tried again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.models import BotVersion, Match, MatchStatus, Tournament, User


def create_tournament(
    session: Session,
    *,
    game: str,
    game_version: int,
    config: dict[str, Any],
    kind: str,
    entrants: Sequence[BotVersion],
    plans: Sequence[Sequence[int]],
    seeds: Sequence[int],
    games_per_match: int,
    duplicate: bool,
    seed: int,
    seed_chosen: bool,
    rated: bool,
    creator: User | None,
) -> Tournament:
    """A tournament and its pending matches; ``plans`` hold entrant indexes in seat order."""
    tournament = Tournament(
        game=game,
        game_version=game_version,
        config=config,
        kind=kind,
        games_per_match=games_per_match,
        duplicate=duplicate,
        seed=seed,
        seed_chosen=seed_chosen,
        rated=rated,
        created_by=creator.id if creator else None,
    )
    session.add(tournament)
    session.flush()
    for index, (plan, match_seed) in enumerate(zip(plans, seeds, strict=True)):
        session.add(
            Match(
                tournament_id=tournament.id,
                index=index,
                seed=match_seed,
                entrants=[entrants[position].id for position in plan],
            )
        )
    return tournament


def retry_failed(session: Session, tournament_id: int) -> list[int]:
    """A tournament's failed matches, pending again with fresh attempts."""
    failed = session.scalars(
        select(Match).where(
            Match.tournament_id == tournament_id, Match.status == MatchStatus.FAILED_INFRASTRUCTURE
        )
    ).all()
    for match in failed:
        match.status, match.attempts = MatchStatus.PENDING, 0
        match.error = f"retried after: {match.error}"
    return [match.id for match in failed]
