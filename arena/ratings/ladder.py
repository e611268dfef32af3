"""Ratings in the store: live Elo as each match lands, the refit that reconciles it, the stored ladder.

* ``apply_live`` runs inside the transaction that records a match (``arena.store.repo.record_result``):
  the entrants' ``ratings`` rows are locked (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's writer
  lock is already held by then), every game of the match moves them (``LiveElo``), and one history
  point per bot is written. Bots meet in a fixed order (by version id), so concurrent matches never
  deadlock on each other's rows.
* ``refit`` is the ladder of record: the batch fit of every stored result of the game; it writes each
  bot's Elo, 95% half-width, rank and likelihood of superiority, resets the live Elo to the fit (the
  refit reconciles it), and adds a ``fit`` history point per bot. ``arena ladder GAME``, the end of
  ``arena tournament run`` and an admin's refit call it. A match that lands while a refit reads the
  results moves the live Elo and is then overwritten by that refit; the next refit counts it (the
  ladder of record never misses a result; the live Elo may, until then).
* ``ladder_rows`` reads the stored ladder for pages and the CLI: fitted bots by rank, then bots that
  only have a live Elo (provisional) by it.

Every change bumps the game's ``ladders.revision``, which pages use as a cache key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select, update
from sqlalchemy.orm import Session

from arena.ratings.fit import fit
from arena.ratings.live import LiveElo
from arena.ratings.load import TEAM_GAMES, load_results
from arena.ratings.model import Ladder
from arena.store.models import Bot, BotVersion, LadderState, Rating, RatingPoint, User, now


def ensure_ratings(session: Session, game: str, version_ids: Iterable[int]) -> None:
    """Create the missing ``ratings`` rows (at the prior) for these bot versions of ``game``."""
    wanted = sorted(set(version_ids))
    have = set(session.scalars(select(Rating.bot_version_id).where(Rating.bot_version_id.in_(wanted))))
    for version_id in wanted:
        if version_id not in have:
            session.add(Rating(bot_version_id=version_id, game=game))
    if session.get(LadderState, game) is None:
        session.add(LadderState(game=game))
    session.flush()


def _bump(session: Session, game: str, **values: object) -> None:
    session.execute(
        update(LadderState)
        .where(LadderState.game == game)
        .values(revision=LadderState.revision + 1, **values)
    )


def apply_live(
    session: Session, game: str, match_id: int, outcomes: Sequence[tuple[Sequence[int], Sequence[int]]]
) -> dict[int, float]:
    """Move the live Elo of a landing match's bots by its games (seats as bot version ids, and ranks,
    in the order played); returns each bot's change over the match."""
    ensure_ratings(session, game, (bot for seats, _ in outcomes for bot in seats))
    bots = sorted({bot for seats, _ in outcomes for bot in seats})
    rows = {
        row.bot_version_id: row
        for row in session.scalars(
            select(Rating)
            .where(Rating.bot_version_id.in_(bots))
            .order_by(Rating.bot_version_id)
            .with_for_update()
        )
    }
    live = LiveElo(ratings={bot: rows[bot].live_elo for bot in bots})
    teams = TEAM_GAMES.get(game)
    played = dict.fromkeys(bots, 0)
    for seats, ranks in outcomes:
        live.apply(seats, ranks, teams)
        for bot in set(seats):  # a kozel team's two seats are one game of its bot
            played[bot] += 1
    stamp = now()
    changes = {}
    for bot in bots:
        row = rows[bot]
        changes[bot] = live.rating(bot) - row.live_elo
        row.live_elo = live.rating(bot)
        row.live_games += played[bot]
        row.updated_at = stamp
        session.add(
            RatingPoint(
                bot_version_id=bot,
                kind="live",
                match_id=match_id,
                elo=row.live_elo,
                halfwidth=None,
                games=row.live_games,
                at=stamp,
            )
        )
    _bump(session, game)
    return changes


def refit(engine: Engine, session: Session, game: str) -> Ladder | None:
    """The batch fit of every stored result of ``game``, written to the store (see the module
    docstring); ``None`` when the game has no results yet."""
    results = load_results(engine, game)
    if results.n_games == 0 or results.bot_ids is None:
        return None
    ladder = fit(results)
    ids = results.bot_ids.tolist()
    ensure_ratings(session, game, ids)
    rows = {
        row.bot_version_id: row
        for row in session.scalars(select(Rating).where(Rating.bot_version_id.in_(ids)).with_for_update())
    }
    stamp = now()
    for entry in ladder.rows():
        assert entry.bot_id is not None
        row = rows[entry.bot_id]
        row.elo = row.live_elo = entry.elo
        row.halfwidth = entry.halfwidth
        row.games = entry.games
        row.rank = entry.rank
        row.superiority = entry.superiority
        row.provisional = entry.provisional
        row.fitted_at = row.updated_at = stamp
        session.add(
            RatingPoint(
                bot_version_id=entry.bot_id,
                kind="fit",
                match_id=None,
                elo=entry.elo,
                halfwidth=entry.halfwidth,
                games=entry.games,
                at=stamp,
            )
        )
    _bump(session, game, fitted_at=stamp, fit_games=results.n_games, fit_seconds=ladder.seconds)
    return ladder


@dataclass(frozen=True)
class LadderRow:
    rank: int
    """Place on the ladder (1 best); fitted bots first, then live-only bots."""
    version_id: int
    bot_id: int
    bot: str
    owner: str
    """The owner's name, ``builtin`` for the platform's bots."""
    elo: float
    """The batch fit's Elo, or the live Elo for a bot not fitted yet."""
    halfwidth: float | None
    games: int
    provisional: bool
    superiority: float | None
    live_elo: float
    live_games: int
    fitted_at: datetime | None


def ladder_rows(session: Session, game: str) -> list[LadderRow]:
    """The stored ladder of ``game`` (no fitting here: a read of ``ratings`` and the bot names)."""
    query = (
        select(Rating, Bot.id, Bot.name, User.name)
        .join(BotVersion, Rating.bot_version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .outerjoin(User, Bot.owner_id == User.id)
        .where(Rating.game == game, (Rating.live_games > 0) | (Rating.games > 0))
    )
    found = session.execute(query).all()
    fitted = sorted((row for row in found if row[0].rank is not None), key=lambda row: (row[0].rank, row[1]))
    live_only = sorted(
        (row for row in found if row[0].rank is None), key=lambda row: (-row[0].live_elo, row[1])
    )
    table = []
    for place, (rating, bot_id, bot, owner) in enumerate([*fitted, *live_only], 1):
        is_fitted = rating.elo is not None
        table.append(
            LadderRow(
                rank=place,
                version_id=rating.bot_version_id,
                bot_id=bot_id,
                bot=bot,
                owner=owner or "builtin",
                elo=rating.elo if rating.elo is not None else rating.live_elo,
                halfwidth=rating.halfwidth,
                games=rating.games if is_fitted else rating.live_games,
                provisional=rating.provisional if is_fitted else True,
                superiority=rating.superiority,
                live_elo=rating.live_elo,
                live_games=rating.live_games,
                fitted_at=rating.fitted_at,
            )
        )
    return table


def revision(session: Session, game: str) -> int:
    """The game's ladder revision (0 before any rating)."""
    return session.scalar(select(LadderState.revision).where(LadderState.game == game)) or 0
