"""Reads for the ratings: a game's bot versions, rated matches, stored outcomes and stored ladder.

That is its bot versions, its rated tournaments and matches, its stored outcomes (as the fit reads
them, fast), its stored ladder and its revision.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Row,
    Text,
    cast,
    func,
    literal_column,
    select,
    type_coerce,
)
from sqlalchemy.dialects.postgresql import aggregate_order_by
from sqlalchemy.orm import Session

from arena.store.models import (
    Bot,
    BotVersion,
    GameOutcome,
    LadderState,
    Match,
    MatchStatus,
    Rating,
    Tournament,
    User,
)


@contextmanager
def connection_of(source: Engine | Connection | Session) -> Iterator[Connection]:
    """A connection of ``source``: a new one of an engine (closed after), or the one given or in use."""
    if isinstance(source, Engine):
        with source.connect() as connection:
            yield connection
    elif isinstance(source, Session):
        yield source.connection()
    else:
        yield source


def sqlite_file(engine: Engine) -> bool:
    """Whether other connections of ``engine`` see the same SQLite database (a file, not memory)."""
    database = engine.url.database
    return engine.dialect.name == "sqlite" and bool(database) and database != ":memory:"


def version_rows(
    source: Engine | Connection | Session, game: str
) -> Sequence[Row[int, int, bool, int | None]]:
    """Every version of ``game``'s bots, ascending: its id, its bot's, whether it passed validation,
    and its bot's owner (None: a built-in)."""
    query = (
        select(BotVersion.id, BotVersion.bot_id, BotVersion.validated, Bot.owner_id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .where(Bot.game == game)
        .order_by(BotVersion.id)
    )
    with connection_of(source) as connection:
        return connection.execute(query).all()


def current_versions(session: Session, game: str) -> dict[int, int]:
    """Per bot of ``game``: its newest validated version."""
    query = (
        select(BotVersion.bot_id, func.max(BotVersion.id))
        .join(Bot, BotVersion.bot_id == Bot.id)
        .where(Bot.game == game, BotVersion.validated)
        .group_by(BotVersion.bot_id)
    )
    return {bot: version for bot, version in session.execute(query).all()}


def rated_tournament_terms(
    connection: Connection, game: str
) -> Sequence[Row[int, dict[str, Any], int, bool]]:
    """``game``'s tournaments marked rated: id, config, game version and whether its seed was chosen."""
    query = select(Tournament.id, Tournament.config, Tournament.game_version, Tournament.seed_chosen).where(
        Tournament.game == game, Tournament.rated
    )
    return connection.execute(query).all()


def done_matches(connection: Connection, tournament_ids: list[int]) -> Iterator[int]:
    """The ids of these tournaments' done matches."""
    query = select(Match.id).where(Match.tournament_id.in_(tournament_ids), Match.status == MatchStatus.DONE)
    return iter(connection.execute(query).scalars())


def landed_since(session: Session, tournament_ids: list[int], since: datetime) -> Sequence[int]:
    """The ids of these tournaments' matches done since ``since``."""
    return session.scalars(
        select(Match.id)
        .join(Tournament, Match.tournament_id == Tournament.id)
        .where(
            Tournament.id.in_(tournament_ids), Match.status == MatchStatus.DONE, Match.finished_at >= since
        )
    ).all()


def outcomes_of_matches(session: Session, match_ids: list[int]) -> Sequence[Row[list[int], list[int]]]:
    """The seats (bot version ids) and ranks of these matches' games, by match and in the order played."""
    return session.execute(
        select(GameOutcome.seats, GameOutcome.ranks)
        .where(GameOutcome.match_id.in_(match_ids))
        .order_by(GameOutcome.match_id, GameOutcome.game_index)
    ).all()


def outcome_id_range(connection: Connection, game: str) -> tuple[int | None, int | None]:
    """The lowest and highest ids of ``game``'s outcomes (None without any)."""
    where = GameOutcome.game == game
    low = connection.scalar(select(func.min(GameOutcome.id)).where(where))
    high = connection.scalar(select(func.max(GameOutcome.id)).where(where))
    return low, high


def outcome_texts(
    connection: Connection, game: str, first_id: int | None, last_id: int | None
) -> tuple[str, str, str, str]:
    """The game's match ids and deals (comma-separated) and seats and ranks (JSON arrays back to back),
    in one row, all in the same row order; outcomes with ids in ``first_id..last_id`` if given. The
    database concatenates each column over the outcomes (SQLite ``group_concat``, PostgreSQL
    ``string_agg``)."""
    dialect = connection.dialect.name
    as_text = (
        (lambda column: cast(column, Text)) if dialect == "postgresql" else (lambda c: type_coerce(c, Text))
    )
    columns = tuple(
        as_text(column)
        for column in (GameOutcome.match_id, GameOutcome.deal, GameOutcome.seats, GameOutcome.ranks)
    )
    where = GameOutcome.game == game
    if first_id is not None and last_id is not None:
        where = where & GameOutcome.id.between(first_id, last_id)
    # literal separators: a bound parameter makes SQLite's group_concat several times slower
    separators: list[ColumnElement[Any]] = [literal_column(text) for text in ("','", "','", "''", "''")]
    pairs = list(zip(columns, separators, strict=True))
    if dialect in ("sqlite", "postgresql"):
        if dialect == "sqlite":  # every aggregate of one scan sees the rows in the same order
            aggregates = [func.group_concat(col, sep, type_=Text) for col, sep in pairs]
        else:
            by_id = GameOutcome.id
            aggregates = [func.string_agg(c, aggregate_order_by(s, by_id), type_=Text) for c, s in pairs]
        row = connection.execute(select(*aggregates).where(where)).one()
        return row[0] or "", row[1] or "", row[2] or "", row[3] or ""
    rows = connection.execute(select(*columns).where(where)).all()
    return (
        ",".join(str(row[0]) for row in rows),
        ",".join(str(row[1]) for row in rows),
        "".join(str(row[2]) for row in rows),
        "".join(str(row[3]) for row in rows),
    )


def fitted_at(session: Session, game: str) -> datetime | None:
    """When ``game``'s ladder was last refitted (None: never)."""
    return session.scalar(select(LadderState.fitted_at).where(LadderState.game == game))


def revision(session: Session, game: str) -> int:
    """The game's ladder revision (0 before any rating)."""
    return session.scalar(select(LadderState.revision).where(LadderState.game == game)) or 0


def ladder_ratings(
    session: Session, game: str, version_ids: Collection[int]
) -> Sequence[Row[Rating, int, str, str | None]]:
    """The ``ratings`` rows of ``game`` among ``version_ids`` that have games (live or fitted), each
    with its bot's id and name and its owner's name (None: a built-in)."""
    query = (
        select(Rating, Bot.id, Bot.name, User.name)
        .join(BotVersion, Rating.bot_version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .outerjoin(User, Bot.owner_id == User.id)
        .where(
            Rating.game == game,
            (Rating.live_games > 0) | (Rating.games > 0),
            Rating.bot_version_id.in_(version_ids),
        )
    )
    return session.execute(query).all()
