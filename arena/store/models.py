"""The store's tables (SQLAlchemy 2.0, typed). Migrations live in ``arena/store/migrations``."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum

from sqlalchemy import JSON, BigInteger, ForeignKey, Index, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship


def now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class MatchStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    FAILED_INFRASTRUCTURE = "failed_infrastructure"
    """Infrastructure faults on every allowed attempt; never counted against the bots."""
    VOID = "void"
    """Cancelled; its results (if any) count for nothing."""


class User(Base):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """SHA-256 of the user's API token; the token itself is shown once and never stored."""
    is_admin: Mapped[bool] = mapped_column(default=False)
    created_at: Mapped[datetime] = mapped_column(default=now)

    bots: Mapped[list[Bot]] = relationship(back_populates="owner")


class Bot(Base):
    __tablename__ = "bots"
    __table_args__ = (UniqueConstraint("game", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    owner_id: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    """None for the platform's built-in bots."""
    game: Mapped[str] = mapped_column(String(32))
    name: Mapped[str] = mapped_column(String(64))
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
    """``builtin:NAME``, or ``artifact:SHA256`` for a submission stored under the artifact folder."""
    entry: Mapped[str] = mapped_column(String(255), default="")
    """The entry point inside the artifact."""
    validated: Mapped[bool] = mapped_column(default=False)
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
    """round_robin, team_round_robin or gauntlet."""
    games_per_match: Mapped[int]
    duplicate: Mapped[bool] = mapped_column(default=False)
    seed: Mapped[int] = mapped_column(BigInteger)
    created_by: Mapped[int | None] = mapped_column(ForeignKey("users.id"))
    created_at: Mapped[datetime] = mapped_column(default=now)

    matches: Mapped[list[Match]] = relationship(back_populates="tournament", order_by="Match.index")


class Match(Base):
    __tablename__ = "matches"
    __table_args__ = (UniqueConstraint("tournament_id", "index"), Index("ix_matches_status", "status"))

    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id"))
    index: Mapped[int]
    seed: Mapped[int] = mapped_column(BigInteger)
    """63-bit (``derive_seed``), so it fits a signed 64-bit column."""
    entrants: Mapped[list[int]] = mapped_column(JSON)
    """Bot version ids in starting seat order."""
    status: Mapped[str] = mapped_column(String(32), default=MatchStatus.PENDING)
    attempts: Mapped[int] = mapped_column(default=0)
    worker: Mapped[str] = mapped_column(String(255), default="")
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    error: Mapped[str] = mapped_column(Text, default="")
    replay_path: Mapped[str] = mapped_column(String(1024), default="")
    log_paths: Mapped[list[str]] = mapped_column(JSON, default=list)
    play_seconds: Mapped[float] = mapped_column(default=0.0)
    decide_seconds: Mapped[float] = mapped_column(default=0.0)
    """Time the bots spent deciding, for the share of wall time spent outside decisions."""

    tournament: Mapped[Tournament] = relationship(back_populates="matches")
    seats: Mapped[list[SeatResult]] = relationship(back_populates="match", order_by="SeatResult.agent")


class SeatResult(Base):
    """One entrant's totals over a match."""

    __tablename__ = "seat_results"
    __table_args__ = (UniqueConstraint("match_id", "agent"),)

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
