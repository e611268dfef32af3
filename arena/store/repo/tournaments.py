"""Writes of tournaments: a new one with its pending matches, its failed matches tried again, and
its matches voided."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from arena.store.models import BotVersion, Match, MatchStatus, Tournament, User, now


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


def void_matches(session: Session, tournament_id: int, statuses: Collection[str], reason: str) -> int:
    """Void the tournament's matches in ``statuses``, with ``reason`` as their error; how many. One
    conditional UPDATE: a match that a worker records meanwhile stays done, and one voided first has
    its worker's result refused (``record_result`` lands nothing on a void match)."""
    voided = session.execute(
        update(Match)
        .where(Match.tournament_id == tournament_id, Match.status.in_(statuses))
        .values(status=MatchStatus.VOID, finished_at=now(), lease_until=None, error=reason)
    )
    return int(voided.rowcount)  # type: ignore[attr-defined]


def set_kind(tournament: Tournament, kind: str) -> None:
    """What the tournament is (a challenge's, say), which the lists and quotas go by."""
    tournament.kind = kind


def append_match(
    session: Session, tournament: Tournament, entrants: Sequence[int], seed_of: Callable[[int], int]
) -> Match:
    """A pending match of these bot versions (in seat order) after the tournament's last, its seed
    ``seed_of(its index)``."""
    index = session.scalar(
        select(func.coalesce(func.max(Match.index), -1) + 1).where(Match.tournament_id == tournament.id)
    )
    assert index is not None
    match = Match(
        tournament_id=tournament.id,
        index=index,
        seed=seed_of(index),
        entrants=list(entrants),
        status=MatchStatus.PENDING,
    )
    session.add(match)
    return match
