"""What the platform does with the store: accounts, bots, tournaments, claiming and recording matches.

Every function takes an open session and leaves committing to the caller's ``Store.session()``
block, so that one unit of work is one transaction.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.bots import BotLoadError, check_spec
from arena.names import NEVER, is_reserved, skeleton
from arena.runner.deals import deal_index
from arena.runner.records import MatchRecord
from arena.store import blobs
from arena.store.blobs import Packed
from arena.store.errors import AuthError, StoreError
from arena.store.models import (
    Bot,
    BotVersion,
    GameOutcome,
    LiveLine,
    Match,
    MatchStatus,
    SeatResult,
    Tournament,
    User,
    now,
)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def api_token() -> str:
    """A new API token: URL-safe, and never starting with ``-``, so that ``--token TOKEN`` on a
    command line reads as the option's value."""
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return token


def create_user(session: Session, name: str, admin: bool = False, system: bool = False) -> tuple[User, str]:
    """A new user and its API token (shown once; only its hash is stored). The name may be neither
    reserved (``system``: an admin's command may give out all but ``builtin``) nor a look-alike of
    another user's (``arena.names``: the same skeleton)."""
    if not name or len(name) > 64 or not name.isprintable() or name != name.strip():
        raise StoreError("a user name has 1 to 64 printable characters, with no space at either end")
    key = skeleton(name)
    if not key:
        raise StoreError("a user name needs a visible letter or digit")
    if is_reserved(name, NEVER) or (not system and is_reserved(name)):
        raise StoreError(f"the user name {name!r} is reserved: choose another")
    alike = session.scalar(select(User.name).where(User.name_key == key))
    if alike == name:
        raise StoreError(f"user {name!r} already exists")
    if alike is not None:
        raise StoreError(f"the user name {name!r} is too like the existing user {alike!r}: choose another")
    token = api_token()
    user = User(name=name, name_key=key, token_hash=hash_token(token), is_admin=admin)
    session.add(user)
    session.flush()  # the unique index on name_key refuses a look-alike made at the same moment
    return user, token


def authenticate(session: Session, token: str | None) -> User:
    if not token:
        raise AuthError("an API token is required (--token or ARENA_API_TOKEN)")
    user = session.scalar(select(User).where(User.token_hash == hash_token(token)))
    if user is None:
        raise AuthError("that API token is not valid")
    return user


def bot_version(
    session: Session, game: str, name: str, spec: str, owner: User | None, entry: str = ""
) -> BotVersion:
    """The version ``spec`` of bot ``name`` (created if new; a bot's name belongs to its owner)."""
    bot = session.scalar(select(Bot).where(Bot.game == game, Bot.name == name))
    if bot is None:
        key = skeleton(name)
        alike = session.scalar(select(Bot.name).where(Bot.game == game, Bot.name_key == key))
        if alike is not None:
            raise StoreError(f"the {game} bot name {name!r} is too like the bot {alike!r}: choose another")
        bot = Bot(game=game, name=name, name_key=key, owner_id=owner.id if owner else None)
        session.add(bot)
        session.flush()
    elif bot.owner_id != (owner.id if owner else None):
        raise StoreError(f"the {game} bot name {name!r} is taken by another user")
    version = session.scalar(select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.spec == spec))
    if version is None:
        version = BotVersion(bot_id=bot.id, spec=spec, entry=entry, validated=spec.startswith("builtin:"))
        session.add(version)
        session.flush()
    return version


def latest_version(session: Session, game: str, name: str) -> BotVersion:
    """A bot's newest validated version, by name; built-ins are named ``builtin:NAME``."""
    if name.startswith("builtin:"):
        try:
            check_spec(game, name)
        except BotLoadError as error:
            raise StoreError(str(error)) from None
        return bot_version(session, game, name, name, None)
    bot = session.scalar(select(Bot).where(Bot.game == game, Bot.name == name))
    if bot is None:
        raise StoreError(f"no {game} bot named {name!r}")
    validated = [version for version in bot.versions if version.validated]
    if not validated:
        raise StoreError(f"bot {name!r} has no version that passed validation")
    return validated[-1]


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
