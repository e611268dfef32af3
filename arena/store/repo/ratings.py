"""Writes of the ratings: the ``ratings`` rows of bot versions, their history, each game's ``ladders`` row.

A version's ``ratings`` row holds its live Elo, the fitted ladder and its consistency flag, with
history points beside it; a game's ``ladders`` row holds its revision, last refit and queue.

The ratings compute what is written (``arena.ratings.ladder``); these functions write it, inside the
caller's transaction (a landing match's result, a refit).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.store.db import insert_new
from arena.store.models import LadderState, Rating, RatingPoint


def ensure_ratings(session: Session, game: str, version_ids: Iterable[int]) -> None:
    """Create the missing ``ratings`` rows (at the prior) for these bot versions of ``game``, and the
    game's ``ladders`` row; another transaction may create the same ones at once."""
    session.flush()
    wanted = sorted(set(version_ids))
    have = set(session.scalars(select(Rating.bot_version_id).where(Rating.bot_version_id.in_(wanted))))
    rows = [{"bot_version_id": version, "game": game} for version in wanted if version not in have]
    insert_new(session, Rating, rows, "bot_version_id")
    insert_new(session, LadderState, [{"game": game}], "game")


def bump(session: Session, game: str, **values: object) -> None:
    """A new revision of ``game``'s ladder (pages use it as a cache key), with these ``values`` of its
    ``ladders`` row."""
    session.execute(
        update(LadderState)
        .where(LadderState.game == game)
        .values(revision=LadderState.revision + 1, **values)
    )


def lock_ladder(session: Session, game: str) -> None:
    """Take ``game``'s ``ladders`` row for writing (and with it SQLite's write lock) until the
    transaction ends."""
    ensure_ratings(session, game, ())
    session.execute(update(LadderState).where(LadderState.game == game).values(game=LadderState.game))


def locked_ratings(
    session: Session, version_ids: Iterable[int], *, ordered: bool = False
) -> dict[int, Rating]:
    """The ``ratings`` rows of these versions, taken for writing (``SELECT ... FOR UPDATE`` on
    PostgreSQL), by version id; ``ordered``: locked in the order of their ids, so that transactions
    that lock them all never deadlock on each other's rows."""
    query = select(Rating).where(Rating.bot_version_id.in_(version_ids))
    if ordered:
        query = query.order_by(Rating.bot_version_id)
    return {row.bot_version_id: row for row in session.scalars(query.with_for_update())}


def move_live(session: Session, row: Rating, elo: float, games: int, match_id: int, stamp: datetime) -> None:
    """A landing match moved this bot's live Elo to ``elo`` over ``games`` games: its row, and a
    ``live`` history point."""
    row.live_elo = elo
    row.live_games += games
    row.updated_at = stamp
    _point(session, row, "live", match_id, None, row.live_games, stamp)


def place(
    session: Session,
    row: Rating,
    *,
    elo: float,
    halfwidth: float,
    games: int,
    rank: int | None,
    superiority: float | None,
    provisional: bool,
    connected: bool,
    stamp: datetime,
    fitted: bool,
) -> None:
    """A fit placed this bot: its row; ``fitted`` (a full refit) also resets its live Elo to the fit
    and adds a ``fit`` history point."""
    row.elo = elo
    row.halfwidth = halfwidth
    row.games = games
    row.rank = rank
    row.superiority = superiority
    row.provisional = provisional
    row.connected = connected
    row.updated_at = stamp
    if fitted:
        row.live_elo = row.elo
        row.fitted_at = stamp
        _point(session, row, "fit", None, row.halfwidth, games, stamp)


def _point(
    session: Session,
    row: Rating,
    kind: str,
    match_id: int | None,
    halfwidth: float | None,
    games: int,
    stamp: datetime,
) -> None:
    """A history point of ``row``'s bot at its live Elo (after a fit, the fit's)."""
    session.add(
        RatingPoint(
            bot_version_id=row.bot_version_id,
            kind=kind,
            match_id=match_id,
            elo=row.live_elo,
            halfwidth=halfwidth,
            games=games,
            at=stamp,
        )
    )


def set_flags(session: Session, version_ids: list[int], text: dict[int, str]) -> None:
    """The consistency flags of these versions' rows: ``text``'s, "" for those it leaves out."""
    for row in session.scalars(select(Rating).where(Rating.bot_version_id.in_(version_ids))):
        row.flag = text.get(row.bot_version_id, "")


def publish_queue(session: Session, game: str, queue: list[int]) -> None:
    """The order in which ``game``'s ladder bots will next be picked (by version id)."""
    state = session.get(LadderState, game)
    if state is None:
        session.add(LadderState(game=game, queue=queue))
    elif state.queue != queue:
        state.queue = queue
