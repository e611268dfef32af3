"""Ratings in the store: live Elo as each match lands, the refit that reconciles it, the stored ladder.

* ``apply_live`` runs inside the transaction that records a match (``arena.store.repo.record_result``):
  the entrants' ``ratings`` rows are locked (``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite's writer
  lock is already held by then), every game of the match moves them (``LiveElo``), and one history
  point per bot is written. Bots meet in a fixed order (by version id), so concurrent matches never
  deadlock on each other's rows.
* ``refit`` is the ladder of record: the batch fit of every stored result of the game; it writes each
  bot's Elo, 95% half-width, rank and likelihood of superiority (``write_ladder``), resets the live
  Elo to the fit (the refit reconciles it), and adds a ``fit`` history point per bot. ``arena ladder
  GAME``, the end of ``arena tournament run`` and an admin's refit call it, and the scheduler service
  between its incremental updates (``arena.ladder.record``), which write the same rows. A match that
  lands while a refit reads the results moves the live Elo and is then overwritten by that refit; the
  next refit counts it (the ladder of record never misses a result; the live Elo may, until then).
* Ranks go to the newest validated version of each bot (``current_versions``) among the bots that a
  chain of games links to the main pool (``arena.ratings.connect``); the others are shown apart.
* ``ladder_rows`` reads the stored ladder for pages and the CLI: ranked bots, then the bots not fitted
  yet (a live Elo only, no rank: it moved by a few matches and has no interval to compare), then the
  bots not connected to the main pool (no rank).

Every change bumps the game's ``ladders.revision``, which pages use as a cache key.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import pairwise

from sqlalchemy import Engine, func, select, update
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.ratings.consistency import Flag, flags
from arena.ratings.fit import fit
from arena.ratings.live import LiveElo
from arena.ratings.load import load_results
from arena.ratings.model import Ladder
from arena.ratings.rated import is_rated
from arena.ratings.store_flags import write_flags
from arena.ratings.versions import versions
from arena.runner.records import MatchRecord
from arena.store.db import insert_new
from arena.store.models import Bot, BotVersion, LadderState, Match, Rating, RatingPoint, User, now
from arena.store.repo import MatchBlobs, outcomes_of, record_result


def ensure_ratings(session: Session, game: str, version_ids: Iterable[int]) -> None:
    """Create the missing ``ratings`` rows (at the prior) for these bot versions of ``game``, and the
    game's ``ladders`` row; another transaction may create the same ones at once."""
    session.flush()
    wanted = sorted(set(version_ids))
    have = set(session.scalars(select(Rating.bot_version_id).where(Rating.bot_version_id.in_(wanted))))
    rows = [{"bot_version_id": version, "game": game} for version in wanted if version not in have]
    insert_new(session, Rating, rows, "bot_version_id")
    insert_new(session, LadderState, [{"game": game}], "game")


def _bump(session: Session, game: str, **values: object) -> None:
    session.execute(
        update(LadderState)
        .where(LadderState.game == game)
        .values(revision=LadderState.revision + 1, **values)
    )


def land_result(session: Session, match_id: int, worker: str, record: MatchRecord, files: MatchBlobs) -> bool:
    """Record a finished match's results (``arena.store.repo.record_result``: False if another run
    recorded them first) and, for a rated match (``arena.ratings.rated``), move its bots' live Elo
    and rating history in the same transaction."""
    if not record_result(session, match_id, worker, record, files):
        return False
    match = session.get(Match, match_id)
    assert match is not None
    if is_rated(match.tournament):
        apply_live(session, record.game.name, match_id, outcomes_of(match, record))
    return True


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
    teams = get_game(game).teams
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


def current_versions(session: Session, game: str) -> dict[int, int]:
    """Per bot of ``game``: its newest validated version, the one on the ladder (an older version
    keeps its games and rating in the history, and off the ladder)."""
    query = (
        select(BotVersion.bot_id, func.max(BotVersion.id))
        .join(Bot, BotVersion.bot_id == Bot.id)
        .where(Bot.game == game, BotVersion.validated)
        .group_by(BotVersion.bot_id)
    )
    return {bot: version for bot, version in session.execute(query).all()}


def refit(engine: Engine, session: Session, game: str, seen: set[int] | None = None) -> Ladder | None:
    """The batch fit of every stored result of ``game``, written to the store (see the module
    docstring); ``None`` when the game has no results yet. ``seen``, if given, receives the ids of
    the matches whose results the fit read."""
    fitted = fit_game(engine, game, seen)
    if fitted is None:
        return None
    record_fit(session, game, fitted)
    return fitted.ladder


@dataclass(frozen=True)
class Fitted:
    """A batch fit of a game, not written yet: the ladder, how many games it read, and each bot's
    consistency flag (``arena.ratings.consistency``), all found before any row is locked."""

    ladder: Ladder
    games: int
    flags: list[Flag | None]


def fit_game(engine: Engine, game: str, seen: set[int] | None = None) -> Fitted | None:
    """The batch fit of every stored result of ``game`` (not written) with its flags; ``None``
    without results. The built-in bots are its anchors, and each version is linked to its
    predecessor (``arena.ratings.versions``: the results' ``bot_ids`` gain the current versions that
    have no results yet but a predecessor's rating)."""
    results = load_results(engine, game, seen=seen)
    if results.n_games == 0 or results.bot_ids is None:
        return None
    known = versions(engine, game, results.bot_ids.tolist())
    results = replace(results, bot_ids=known.bot_ids)
    ladder = fit(results, len(known.bot_ids), anchors=known.anchors, lineage=known.lineage)
    return Fitted(ladder, results.n_games, flags(ladder, results))


def record_fit(session: Session, game: str, fitted: Fitted) -> None:
    """Write a batch fit as the ladder of record (``write_ladder``) with its consistency flags
    (``write_flags``), stamped as the game's last refit."""
    ladder = fitted.ladder
    write_ladder(session, game, ladder, fitted=True)
    write_flags(session, ladder, fitted.flags)
    _bump(session, game, fitted_at=now(), fit_games=fitted.games, fit_seconds=ladder.seconds)


def last_refit(session: Session, game: str, *, lock: bool = False) -> datetime | None:
    """When ``game``'s ladder was last refitted (None: never). With ``lock``, first take its
    ``ladders`` row for writing (and with it SQLite's write lock), so that no other refit lands
    before this transaction ends: the first statement of a transaction that writes a ladder only if
    no one refitted it since it read the results."""
    if lock:
        ensure_ratings(session, game, ())
        session.execute(update(LadderState).where(LadderState.game == game).values(game=LadderState.game))
    return session.scalar(select(LadderState.fitted_at).where(LadderState.game == game))


def write_ladder(session: Session, game: str, ladder: Ladder, *, fitted: bool) -> None:
    """Write a fitted (``fitted``: a full refit, which also resets the live Elo and adds a history
    point per bot) or incrementally updated ladder to the ``ratings`` rows of its bots.

    Ranks go to the current versions (``current_versions``) in the main pool, best first, each
    with its likelihood of superiority over the next; a bot with no chain of games to the main pool
    is ``connected = False`` and has no rank, nor has an older version of a bot. A current version
    with no games yet is written with its predecessor's rating (``Ladder.inherits``)."""
    assert ladder.bot_ids is not None
    ids = ladder.bot_ids.tolist()
    ensure_ratings(session, game, ids)
    rows = {
        row.bot_version_id: row
        for row in session.scalars(select(Rating).where(Rating.bot_version_id.in_(ids)).with_for_update())
    }
    current = set(current_versions(session, game).values())
    ranked = [bot for bot in ladder.order().tolist() if ladder.component[bot] == 0 and ids[bot] in current]
    place = {bot: rank for rank, bot in enumerate(ranked, 1)}
    below = dict(pairwise(ranked))
    halfwidth = ladder.halfwidth
    stamp = now()
    inherits = ladder.inherits
    for bot, version_id in enumerate(ids):
        games = int(ladder.games[bot])
        if games == 0 and not inherits[bot]:
            continue
        row = rows[version_id]
        row.elo = float(ladder.elo[bot])
        row.halfwidth = float(halfwidth[bot])
        row.games = games
        row.rank = place.get(bot)
        row.superiority = ladder.superiority(bot, below[bot]) if bot in below else None
        row.provisional = bool(ladder.provisional[bot]) or len(ranked) < 2
        row.connected = bool(ladder.component[bot] == 0)
        row.updated_at = stamp
        if fitted:
            row.live_elo = row.elo
            row.fitted_at = stamp
            session.add(
                RatingPoint(
                    bot_version_id=version_id,
                    kind="fit",
                    match_id=None,
                    elo=row.elo,
                    halfwidth=row.halfwidth,
                    games=games,
                    at=stamp,
                )
            )
    if not fitted:
        _bump(session, game)


@dataclass(frozen=True)
class LadderRow:
    rank: int | None
    """Place on the ladder (1 best) among the fitted bots linked to the main pool; None for a bot
    that is not (``connected``) or not fitted yet (``fitted``)."""
    version_id: int
    bot_id: int
    bot: str
    owner: str
    """The owner's name, ``builtin`` for the platform's bots."""
    elo: float
    """The ladder of record's Elo, or the live Elo for a bot not fitted yet."""
    halfwidth: float | None
    games: int
    provisional: bool
    superiority: float | None
    connected: bool
    """A chain of games links it to the main pool: only then do its rank, Elo and interval compare
    with the others'."""
    live_elo: float
    live_games: int
    fitted_at: datetime | None
    fitted: bool
    """A fit (full or incremental) has placed it; without one it has only a live Elo, moved by a few
    matches, and no rank or interval next to fitted bots."""
    flag: str = ""
    """The last full refit's consistency flag ("inconsistent results against ...": its rating is not
    one number, ``arena.ratings.consistency``), or ""."""


def ladder_rows(session: Session, game: str) -> list[LadderRow]:
    """The stored ladder of ``game``, current versions only (no fitting here: a read of ``ratings``
    and the bot names): ranked bots, then bots with a live Elo only (not fitted yet: unranked,
    provisional), then bots not connected to the main pool (unranked)."""
    query = (
        select(Rating, Bot.id, Bot.name, User.name)
        .join(BotVersion, Rating.bot_version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .outerjoin(User, Bot.owner_id == User.id)
        .where(
            Rating.game == game,
            (Rating.live_games > 0) | (Rating.games > 0),
            Rating.bot_version_id.in_(current_versions(session, game).values()),
        )
    )
    found = session.execute(query).all()
    ranked = sorted((row for row in found if row[0].rank is not None), key=lambda row: (row[0].rank, row[1]))
    live_only = sorted(
        (row for row in found if row[0].elo is None), key=lambda row: (-row[0].live_elo, row[1])
    )
    apart = sorted(
        (row for row in found if row[0].elo is not None and row[0].rank is None),
        key=lambda row: (-(row[0].elo or 0.0), row[1]),
    )
    table: list[LadderRow] = []
    for rating, bot_id, bot, owner in [*ranked, *live_only, *apart]:
        is_fitted = rating.elo is not None
        connected = rating.rank is not None or not is_fitted
        table.append(
            LadderRow(
                rank=len(table) + 1 if rating.rank is not None else None,
                version_id=rating.bot_version_id,
                bot_id=bot_id,
                bot=bot,
                owner=owner or "builtin",
                elo=rating.elo if rating.elo is not None else rating.live_elo,
                halfwidth=rating.halfwidth if connected else None,
                games=rating.games if is_fitted else rating.live_games,
                provisional=rating.provisional if is_fitted else True,
                superiority=rating.superiority,
                connected=connected,
                live_elo=rating.live_elo,
                live_games=rating.live_games,
                fitted_at=rating.fitted_at,
                fitted=is_fitted,
                flag=rating.flag if is_fitted else "",
            )
        )
    return table


def revision(session: Session, game: str) -> int:
    """The game's ladder revision (0 before any rating)."""
    return session.scalar(select(LadderState.revision).where(LadderState.game == game)) or 0
