"""Writes of a match's run: claiming it, renewing and giving back its lease, and recording its result
exactly once."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.runner.deals import deal_index
from arena.runner.records import MatchRecord
from arena.store import blobs
from arena.store.blobs import Packed
from arena.store.errors import StoreError
from arena.store.models import GameOutcome, LiveLine, Match, MatchStatus, SeatResult, now


def claim(session: Session, match_id: int, worker: str, max_attempts: int, lease: timedelta) -> Match | None:
    """Mark a pending match running for ``worker``, which holds it for ``lease`` (and renews the
    lease while it plays); ``None`` if it is not pending (already done, running elsewhere, void)
    or out of attempts. The conditional UPDATE makes the claim atomic. What earlier attempts left
    of the match's live replay goes in the same transaction, so no spectator ever sees it."""
    started = now()
    claimed = session.execute(
        update(Match)
        .where(Match.id == match_id, Match.status == MatchStatus.PENDING, Match.attempts < max_attempts)
        .values(
            status=MatchStatus.RUNNING,
            attempts=Match.attempts + 1,
            worker=worker,
            started_at=started,
            lease_until=started + lease,
        )
    )
    if claimed.rowcount != 1:  # type: ignore[attr-defined]
        return None
    session.execute(delete(LiveLine).where(LiveLine.match_id == match_id))
    return session.get(Match, match_id)


@dataclass(frozen=True)
class MatchBlobs:
    """A played match's replay and per-agent logs, packed before its result's transaction."""

    replay: Packed
    logs: list[Packed]


def record_result(
    session: Session, match_id: int, worker: str, record: MatchRecord, files: MatchBlobs
) -> bool:
    """Write a finished match's results in one transaction, exactly once.

    A played match is a result whoever played it: a worker whose lease expired while it could not
    reach the database (its match pending again, or claimed by another worker, or failed) still
    lands its result, and the other run's is then refused. Only a match already done or void
    refuses it; the unique (match, game) key on outcomes refuses a second copy. Returns False if
    another run recorded it first (the caller's transaction is then rolled back by raising). Its
    replay and logs are kept as blobs. A rated match's live Elo is moved by the ratings, in the same
    transaction (``arena.ratings.ladder.land_result``)."""
    finished = session.execute(
        update(Match)
        .where(Match.id == match_id, Match.status.not_in([MatchStatus.DONE, MatchStatus.VOID]))
        .values(
            status=MatchStatus.DONE,
            worker=worker,
            finished_at=now(),
            lease_until=None,
            error="",
            replay_blob=files.replay.digest,
            log_blobs=[log.digest for log in files.logs],
            play_seconds=record.play_s,
            decide_seconds=record.decide_ms() / 1000.0,
        )
    )
    if finished.rowcount != 1:  # type: ignore[attr-defined]
        return False
    for packed in [files.replay, *files.logs]:
        blobs.put(session, packed)
    match = session.get(Match, match_id)
    assert match is not None
    seats = len(match.entrants)
    for row in record.agent_summary():
        session.add(
            SeatResult(
                match_id=match_id,
                agent=row["agent"],
                bot_version_id=match.entrants[row["agent"]],
                games=row["games"],
                wins=row["wins"],
                score=sum(
                    game.result.scores[game.seating.index(row["agent"])]
                    for game in record.games
                    if game.result is not None
                ),
                mean_rank=row["mean_rank"],
                statuses={name: count for name, count in row["statuses"].items() if count},
            )
        )
    for game, (bots, ranks) in zip(record.games, outcomes_of(match, record), strict=True):
        session.add(
            GameOutcome(
                match_id=match_id,
                game=record.game.name,
                game_index=game.index,
                deal=deal_index(game.index, seats, record.duplicate),
                seats=bots,
                ranks=ranks,
                statuses=[str(status) for status in game.statuses],
            )
        )
    try:
        session.flush()
    except IntegrityError as error:
        raise StoreError(f"match {match_id} was already recorded") from error
    return True


def outcomes_of(match: Match, record: MatchRecord) -> list[tuple[list[int], list[int]]]:
    """Each game of ``match``'s ``record``, in the order played: its seats' bot version ids and ranks."""
    outcomes = []
    for game in record.games:
        assert game.result is not None
        outcomes.append(([match.entrants[agent] for agent in game.seating], list(game.result.ranks)))
    return outcomes


def release(session: Session, match_id: int, worker: str, error: str, max_attempts: int) -> str:
    """Give back a match whose run hit an infrastructure fault: pending again, or
    failed_infrastructure once out of attempts. Never counted against the bots."""
    match = session.get(Match, match_id)
    if match is None or match.status != MatchStatus.RUNNING or match.worker != worker:
        return match.status if match else "missing"
    match.status = MatchStatus.PENDING if match.attempts < max_attempts else MatchStatus.FAILED_INFRASTRUCTURE
    match.error = error
    match.worker, match.lease_until = "", None
    return match.status


def renew(session: Session, match_id: int, worker: str, lease: timedelta) -> bool:
    """Extend ``worker``'s lease on its running match; False if the match is no longer its own."""
    renewed = session.execute(
        update(Match)
        .where(Match.id == match_id, Match.status == MatchStatus.RUNNING, Match.worker == worker)
        .values(lease_until=now() + lease)
    )
    return renewed.rowcount == 1  # type: ignore[attr-defined,no-any-return]


def expire_leases(session: Session, max_attempts: int) -> list[int]:
    """Running matches whose worker stopped renewing its lease (it died, hangs, or its match ran
    past its own bound): pending again, or failed once out of attempts. Their ids: each one's
    task is known lost."""
    cutoff = now()
    expired = session.scalars(
        select(Match).where(Match.status == MatchStatus.RUNNING, Match.lease_until < cutoff)
    ).all()
    for match in expired:
        match.worker, match.lease_until = "", None
        if match.attempts < max_attempts:
            match.status = MatchStatus.PENDING
            match.error = "run again: its worker stopped renewing its lease"
        else:
            match.status = MatchStatus.FAILED_INFRASTRUCTURE
            match.error = f"its worker stopped renewing its lease on each of {match.attempts} attempts"
    return [match.id for match in expired]


def give_back(session: Session, worker: str) -> list[int]:
    """Matches ``worker`` holds, pending again as if never claimed: it stopped on purpose (Ctrl-C)."""
    held = session.scalars(
        select(Match).where(Match.status == MatchStatus.RUNNING, Match.worker == worker)
    ).all()
    for match in held:
        match.status, match.worker, match.lease_until = MatchStatus.PENDING, "", None
        match.attempts = max(0, match.attempts - 1)
        match.error = "given back: its run was interrupted"
    return [match.id for match in held]


def hold(session: Session, match: Match, worker: str, attempts: int, lease: timedelta) -> None:
    """Mark a new match running for ``worker`` at once, its ``attempts`` used: no scheduler ever sees
    it pending, and one that ``worker`` loses fails."""
    match.status, match.worker, match.attempts = MatchStatus.RUNNING, worker, attempts
    match.started_at, match.lease_until = now(), now() + lease
    session.flush()
