"""The store's tables (SQLAlchemy 2.0, typed). Migrations live in ``arena/store/migrations``."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

from sqlalchemy import (
    JSON,
    Dialect,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy.engine.default import DefaultExecutionContext
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from arena.names import MAX_KEY, skeleton


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


def _name_key(context: DefaultExecutionContext) -> str:
    parameters: dict[str, object] = context.get_current_parameters()  # type: ignore[no-untyped-call]
    return skeleton(str(parameters["name"]))


def _open_by_default(context: DefaultExecutionContext) -> bool:
    parameters: dict[str, object] = context.get_current_parameters()  # type: ignore[no-untyped-call]
    return parameters.get("owner_id") is None


class Seed(TypeDecorator[int]):
    """A seed of up to 128 bits (``arena.runner.deals.SEED_BITS``), stored as its decimal digits:
    wider than any integer column that SQLite and PostgreSQL share."""

    impl = String(40)
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> str | None:
        return None if value is None else str(value)

    def process_result_value(self, value: str | None, dialect: Dialect) -> int | None:
        return None if value is None else int(value)


class MatchStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED_INFRASTRUCTURE = "failed_infrastructure"
    """Could not finish on any allowed attempt (the sandbox failed, or its worker died or stopped
    renewing its lease each time), with the reason in ``error``; never counted against the bots.
    ``arena tournament retry`` sends such matches back."""
    VOID = "void"
    """Cancelled; its results (if any) count for nothing."""


class User(Base):
    __tablename__ = "users"
    __table_args__ = (Index("uq_users_name_key", "name_key", unique=True),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    name_key: Mapped[str] = mapped_column(String(MAX_KEY), nullable=True, default=_name_key)
    """The name's skeleton (``arena.names``): no two users have look-alike names. Every insert sets
    it; NULL is allowed in the table only because SQLite adds a NOT NULL column by copying the
    table, which the foreign keys to it forbid (migration 0009)."""
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 of the user's API token; the token itself is shown once and never stored."""
    password_hash: Mapped[str] = mapped_column(String(255), default="")
    """scrypt hash of the web password (``scrypt$n$r$p$salt$hash``); empty: no web login."""
    is_admin: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=now)

    bots: Mapped[list[Bot]] = relationship(back_populates="owner")


class Bot(Base):
    __tablename__ = "bots"
    __table_args__ = (
        UniqueConstraint("game", "name"),
        Index("uq_bots_game_name_key", "game", "name_key", unique=True),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    """None for the platform's built-in bots."""
    game: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(MAX_KEY), nullable=True, default=_name_key)
    """The name's skeleton (``arena.names``): a game's bots have no look-alike names (set by every
    insert, as ``User.name_key``)."""
    open_to_others: Mapped[bool] = mapped_column(default=_open_by_default, server_default=false())
    """Others may challenge it and seat it against themselves (``arena.tournament.challenges``):
    the built-ins by default, a user's bot once its owner opens it."""
    created_at: Mapped[datetime] = mapped_column(default=now)

    owner: Mapped[User | None] = relationship(back_populates="bots")
    versions: Mapped[list[BotVersion]] = relationship(back_populates="bot", order_by="BotVersion.id")


class BotVersion(Base):
    """An immutable version of a bot: a built-in, or a stored artifact addressed by content hash."""

    __tablename__ = "bot_versions"
    __table_args__ = (UniqueConstraint("bot_id", "spec"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    spec: Mapped[str] = mapped_column(String(128))
    """``builtin:NAME``, or ``artifact:SHA256`` for a submission (``submissions.content_digest``)."""
    entry: Mapped[str] = mapped_column(String(255), default="")
    """The entry point inside the artifact."""
    code_blob: Mapped[str] = mapped_column(String(64), default="", server_default="")
    """The blob of the artifact's files (``submissions.archive``), from which a host lacking the
    artifact folder makes it; empty for built-ins, and for code stored before blobs, which only the
    folder holds."""
    validated: Mapped[bool] = mapped_column(default=False)
    """It passed validation: only then may it play."""
    validating: Mapped[bool] = mapped_column(default=False, server_default=false())
    """Its validation has not finished yet (web submissions are validated in the background)."""
    validation_log: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=now)

    bot: Mapped[Bot] = relationship(back_populates="versions")


class Tournament(Base):
    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    game_version: Mapped[int]
    config: Mapped[dict[str, object]] = mapped_column(JSON)
    kind: Mapped[str] = mapped_column(String(32))
    """round_robin, team_round_robin or gauntlet; ``ladder`` for the living ladder's standing
    tournament of a game, to which the scheduler adds matches one at a time (``arena.ladder``)."""
    games_per_match: Mapped[int]
    duplicate: Mapped[bool] = mapped_column(default=False)
    seed: Mapped[int] = mapped_column(Seed)
    """Secret: drawn from the CSPRNG unless the creator chose it; never sent to a bot, and shown
    only once the tournament is over."""
    seed_chosen: Mapped[bool] = mapped_column(default=False, server_default=false())
    """Someone chose the seed (``--seed``): a bot may know it, so the tournament is never rated."""
    rated: Mapped[bool] = mapped_column(default=False, server_default=false())
    """Its matches feed the ladder of record (``arena.ratings.rated``): the living ladder's standing
    tournaments, and tournaments an admin marks rated that keep the rated terms. The others are
    unrated: their own standings, never a ladder."""
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=now)

    matches: Mapped[list[Match]] = relationship(back_populates="tournament", order_by="Match.index")


class Match(Base):
    __tablename__ = "matches"
    __table_args__ = (
        UniqueConstraint("tournament_id", "index"),
        Index("ix_matches_status", "status"),
        Index("ix_matches_finished", "finished_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    index: Mapped[int]
    seed: Mapped[int] = mapped_column(Seed)
    """Derived from the tournament's seed (``derive_seed``); shown only once the match is over."""
    entrants: Mapped[list[int]] = mapped_column(JSON)
    """Bot version ids in starting seat order."""
    status: Mapped[str] = mapped_column(String(32), default=MatchStatus.PENDING)
    attempts: Mapped[int] = mapped_column(default=0)
    worker: Mapped[str] = mapped_column(String(255), default="")
    started_at: Mapped[datetime | None]
    lease_until: Mapped[datetime | None]
    """While running: the worker holds the match until then, and renews the lease as it plays."""
    finished_at: Mapped[datetime | None]
    error: Mapped[str] = mapped_column(Text, default="")
    replay_blob: Mapped[str] = mapped_column(String(64), default="")
    """The blob of its replay (``arena.runner.replay``'s JSON), once it is recorded."""
    log_blobs: Mapped[list[str]] = mapped_column(JSON, default=list)
    """Per agent: the blob of its log, once the match is recorded."""
    play_seconds: Mapped[float] = mapped_column(default=0.0)
    decide_seconds: Mapped[float] = mapped_column(default=0.0)
    """Time the bots spent deciding, for the share of wall time spent outside decisions."""

    tournament: Mapped[Tournament] = relationship(back_populates="matches")
    seats: Mapped[list[SeatResult]] = relationship(back_populates="match", order_by="SeatResult.agent")


class LiveLine(Base):
    """One line of a running match's replay so far (``arena.store.live``): line 0 the replay's
    header, then one per finished game, as the worker holding the match wrote them."""

    __tablename__ = "live_replays"

    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"), primary_key=True)
    worker: Mapped[str] = mapped_column(String(255), primary_key=True)
    """Lines are read only for the match's current worker: one that lost the match cannot add to them."""
    line: Mapped[int] = mapped_column(primary_key=True)
    data: Mapped[str] = mapped_column(Text)
    """JSON."""


class SeatResult(Base):
    """One entrant's totals over a match."""

    __tablename__ = "seat_results"
    __table_args__ = (
        UniqueConstraint("match_id", "agent"),
        Index("ix_seat_results_version", "bot_version_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    agent: Mapped[int]
    """The entrant's index in ``Match.entrants``."""
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    games: Mapped[int]
    wins: Mapped[int]
    score: Mapped[float]
    mean_rank: Mapped[float]
    statuses: Mapped[dict[str, int]] = mapped_column(JSON)

    match: Mapped[Match] = relationship(back_populates="seats")


class GameOutcome(Base):
    """One game's finish order, the unit the ratings fit uses."""

    __tablename__ = "game_outcomes"
    __table_args__ = (UniqueConstraint("match_id", "game_index"), Index("ix_outcomes_game", "game"))

    id: Mapped[int] = mapped_column(primary_key=True)
    match_id: Mapped[int] = mapped_column(ForeignKey("matches.id"))
    game: Mapped[str] = mapped_column(String(32))
    game_index: Mapped[int]
    deal: Mapped[int]
    """Games of a match that replay the same deal share this number (duplicate deals)."""
    seats: Mapped[list[int]] = mapped_column(JSON)
    """Bot version id per seat."""
    ranks: Mapped[list[int]] = mapped_column(JSON)
    statuses: Mapped[list[str]] = mapped_column(JSON)


class Rating(Base):
    """A bot version's place on its game's ladder: the live Elo (moved by every landing match) and
    the last batch fit (the ladder of record), which also resets the live Elo."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_game", "game"),)

    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    live_elo: Mapped[float] = mapped_column(default=1500.0)
    live_games: Mapped[int] = mapped_column(default=0)
    """Games counted into the live Elo (all of them: the fit resets the rating, not the count)."""
    elo: Mapped[float | None]
    """Batch fit: Elo, 95% half-width, games, rank, P(better than the next bot); None before a fit."""
    halfwidth: Mapped[float | None]
    games: Mapped[int] = mapped_column(default=0)
    rank: Mapped[int | None]
    superiority: Mapped[float | None]
    provisional: Mapped[bool] = mapped_column(default=True)
    connected: Mapped[bool] = mapped_column(default=True, server_default=true())
    """A chain of games links it to the main pool (``arena.ratings.connect``); if not, it has no rank,
    and its Elo and interval mean nothing next to the main pool's."""
    flag: Mapped[str] = mapped_column(Text, default="", server_default="")
    """Empty, or why its results are not one number (``arena.ratings.consistency``): results against
    one opponent, or in one period, that depart from its rating; shown as "inconsistent results"."""
    fitted_at: Mapped[datetime | None]
    updated_at: Mapped[datetime] = mapped_column(default=now)


class RatingPoint(Base):
    """Rating history, for plots: one point per bot per landing match (live) and per refit (fit)."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_bot", "bot_version_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    bot_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    kind: Mapped[str] = mapped_column(String(8))
    """``live`` or ``fit``."""
    match_id: Mapped[int | None] = mapped_column(ForeignKey("matches.id"))
    elo: Mapped[float]
    halfwidth: Mapped[float | None]
    games: Mapped[int]
    at: Mapped[datetime] = mapped_column(default=now)


class LadderState(Base):
    """Per game: the last refit and a revision number bumped by every change to its ratings (pages
    cache the ladder by it)."""

    __tablename__ = "ladders"

    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    revision: Mapped[int] = mapped_column(default=0)
    fitted_at: Mapped[datetime | None]
    fit_games: Mapped[int] = mapped_column(default=0)
    fit_seconds: Mapped[float] = mapped_column(default=0.0)
    queue: Mapped[list[int]] = mapped_column(JSON, default=list, server_default="[]")
    """The living ladder's bot versions in the order the scheduler will next pick them for a match
    (``arena.ladder.matchmaking``: the focus of each pick), as it last published it."""


class WebSession(Base):
    """A signed-in browser: the cookie holds a random key, only its SHA-256 is stored; ``csrf`` is
    the token every form of the session must send back."""

    __tablename__ = "web_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id"))
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=now)
    expires_at: Mapped[datetime]

    user: Mapped[User] = relationship()


class Role(Base):
    """A duty one process at a time performs (the scheduler), held on a lease its holder renews;
    a process that finds the lease expired takes the role over."""

    __tablename__ = "roles"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    holder: Mapped[str] = mapped_column(String(255))
    lease_until: Mapped[datetime]
    problem: Mapped[str] = mapped_column(Text, default="")
    """What keeps the holder from working (no broker, no worker), for those who follow progress."""


class Blob(Base):
    """Bytes named by their SHA-256, kept compressed (``arena.store.blobs``): bot code, replays and
    logs, which reach every host through the store instead of a shared folder."""

    __tablename__ = "blobs"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    """SHA-256 of the uncompressed bytes, in hex."""
    size: Mapped[int]
    """Uncompressed bytes."""
    data: Mapped[bytes] = mapped_column(LargeBinary)
    """zlib-compressed."""


class AbTest(Base):
    """A sequential A/B test of two bot versions (``arena.tournament.abtest``): its parameters and
    verdict; its tournament (unrated, duplicate deals) holds the matches, added as the test goes."""

    __tablename__ = "ab_tests"

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"), unique=True)
    new_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    old_version_id: Mapped[int] = mapped_column(ForeignKey("bot_versions.id"))
    elo0: Mapped[float]
    elo1: Mapped[float]
    alpha: Mapped[float]
    beta: Mapped[float]
    max_games: Mapped[int]
    panel: Mapped[list[int]] = mapped_column(JSON, default=list)
    """A free-for-all test's opponents (version ids), seated alike in NEW's and OLD's matches; empty
    for NEW against OLD."""
    verdict: Mapped[str] = mapped_column(String(32), default="")
    """"" while it runs; better, worse, no difference, cap reached, or why it stopped short."""
    finished_at: Mapped[datetime | None]

    tournament: Mapped[Tournament] = relationship()
