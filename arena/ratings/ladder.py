"""Ratings in the store: live Elo as each match lands, the refit that reconciles it, the stored ladder.

``apply_live`` moves the entrants' ``ratings`` rows inside the transaction that records a match
(rows locked in a fixed order, so concurrent matches never deadlock). ``refit`` is the ladder of
record: the batch fit of every stored result of the game, written by ``write_ladder``, the live Elo
reset to it. Ranks go to each bot's newest validated version linked to the main pool.
``ladder_rows`` reads the stored ladder for pages and the CLI. Every change bumps the game's
``ladders.revision``, which pages use as a cache key.

In full: docs/ratings-model.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from itertools import pairwise

from sqlalchemy import Engine
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
from arena.store.models import Match, now
from arena.store.queries import ratings as queries
from arena.store.repo import MatchBlobs, outcomes_of, record_result
from arena.store.repo import ratings as repo
from arena.store.repo.ratings import bump, ensure_ratings, lock_ladder, locked_ratings, move_live


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
    rows = locked_ratings(session, bots, ordered=True)
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
        changes[bot] = live.rating(bot) - rows[bot].live_elo
        move_live(session, rows[bot], live.rating(bot), played[bot], match_id, stamp)
    bump(session, game)
    return changes


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
    bump(session, game, fitted_at=now(), fit_games=fitted.games, fit_seconds=ladder.seconds)


def last_refit(session: Session, game: str, *, lock: bool = False) -> datetime | None:
    """When ``game``'s ladder was last refitted (None: never). With ``lock``, first take its
    ``ladders`` row for writing (and with it SQLite's write lock), so that no other refit lands
    before this transaction ends: the first statement of a transaction that writes a ladder only if
    no one refitted it since it read the results."""
    if lock:
        lock_ladder(session, game)
    return queries.fitted_at(session, game)


def write_ladder(session: Session, game: str, ladder: Ladder, *, fitted: bool) -> None:
    """Write a fitted (``fitted``: a full refit, which also resets the live Elo and adds a history
    point per bot) or incrementally updated ladder to the ``ratings`` rows of its bots.

    Ranks go to the current versions (the newest validated version of each bot) in the main pool,
    best first, each with its likelihood of superiority over the next; a bot with no chain of games
    to the main pool is ``connected = False`` and has no rank, nor has an older version of a bot. A
    current version with no games yet is written with its predecessor's rating (``Ladder.inherits``)."""
    assert ladder.bot_ids is not None
    ids = ladder.bot_ids.tolist()
    ensure_ratings(session, game, ids)
    rows = locked_ratings(session, ids)
    current = set(queries.current_versions(session, game).values())
    ranked = [bot for bot in ladder.order().tolist() if ladder.component[bot] == 0 and ids[bot] in current]
    ranks = {bot: rank for rank, bot in enumerate(ranked, 1)}
    below = dict(pairwise(ranked))
    halfwidth = ladder.halfwidth
    stamp = now()
    inherits = ladder.inherits
    for bot, version_id in enumerate(ids):
        games = int(ladder.games[bot])
        if games == 0 and not inherits[bot]:
            continue
        repo.place(
            session,
            rows[version_id],
            elo=float(ladder.elo[bot]),
            halfwidth=float(halfwidth[bot]),
            games=games,
            rank=ranks.get(bot),
            superiority=ladder.superiority(bot, below[bot]) if bot in below else None,
            provisional=bool(ladder.provisional[bot]) or len(ranked) < 2,
            connected=bool(ladder.component[bot] == 0),
            stamp=stamp,
            fitted=fitted,
        )
    if not fitted:
        bump(session, game)


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
    found = queries.ladder_ratings(session, game, queries.current_versions(session, game).values())
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
