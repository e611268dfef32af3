"""Reading a game's stored results (``game_outcomes``) into ``Results`` for the ladder fit, fast.

One query (``arena.store.queries.ratings.outcome_texts``): the database concatenates each column
over all of the game's outcomes (SQLite ``group_concat``, PostgreSQL ``string_agg``), and a scanner
compiled by numba reads the four long strings in one pass each (no Python object per row); from an
SQLite file with many outcomes, two such queries over the two halves of their ids run at once
(``SPLIT_ABOVE``). Only outcomes of rated matches count (``arena.ratings.rated``: done, of a rated
tournament; a ``void`` match's results count for nothing, nor do an unrated tournament's): a
second, small query lists the rated matches, and numpy keeps their outcomes (a subquery in the big
query made SQLite probe it once per outcome, a quarter of the query's time). Games that share a
match and a deal (duplicate deals) form one cluster for the error bars. Kozel's seats 0 and 2 play
seats 1 and 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt
from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.ratings.kernels import compiled
from arena.ratings.rated import rated_matches
from arena.ratings.results import IntArray, RatingsError, Results
from arena.ratings.threads import in_parallel
from arena.store.queries.ratings import connection_of, outcome_id_range, outcome_texts, sqlite_file

_DIGIT_LIMIT = 18

SPLIT_ABOVE = 100_000
"""From an SQLite file, a game's outcomes spanning more ids than this are read in two halves at once:
two connections on two threads (SQLite runs a query on one CPU; the scanner releases the GIL too)."""


@dataclass(frozen=True, eq=False)
class _Columns:
    """Outcomes as read: match id and deal per game, and the seats and ranks of all games back to
    back, with the seats per game."""

    match_ids: IntArray
    deals: IntArray
    seats: IntArray
    ranks: IntArray
    seat_counts: IntArray


def load_results(
    source: Engine | Connection | Session,
    game: str,
    *,
    teams: Sequence[int] | None = None,
    seen: set[int] | None = None,
) -> Results:
    """The rated results of ``game`` (``arena.ratings.rated``), bot indexes mapped to
    ``Results.bot_ids`` (bot version ids, ascending), clusters by (match, deal). ``teams``: a team
    label per seat for every game, if it is a team game (default: the game's ``Game.teams``). ``seen``, if
    given, receives the ids of the matches read."""
    parts, rated = _read(source, game)
    match_ids, deals, seats, ranks, seat_counts = (
        np.concatenate([getattr(part, name) for part in parts])
        for name in ("match_ids", "deals", "seats", "ranks", "seat_counts")
    )
    counted = np.isin(match_ids, rated)
    if not counted.all():
        counted_seats = np.repeat(counted, seat_counts)
        match_ids, deals, seat_counts = match_ids[counted], deals[counted], seat_counts[counted]
        seats, ranks = seats[counted_seats], ranks[counted_seats]
    if seen is not None:
        seen.update(np.unique(match_ids).tolist())
    n_games = len(match_ids)
    offsets = np.zeros(n_games + 1, dtype=np.int64)
    np.cumsum(seat_counts, out=offsets[1:])
    bot_ids, bots = _dense(seats)
    keys = match_ids * (int(deals.max()) + 1 if n_games else 1) + deals
    _, clusters = _dense(keys)
    labels = get_game(game).teams if teams is None else tuple(teams)
    team_array = None
    if labels is not None:
        if n_games and np.any(seat_counts != len(labels)):
            raise RatingsError(f"every {game} game needs {len(labels)} seats for its teams")
        team_array = np.tile(np.asarray(labels, dtype=np.int64), n_games)
    return Results(
        offsets=offsets, bots=bots, ranks=ranks, teams=team_array, clusters=clusters, bot_ids=bot_ids
    )


def _read(source: Engine | Connection | Session, game: str) -> tuple[list[_Columns], IntArray]:
    """The game's outcomes (in one part, or two from an SQLite file with many), and the ids of its
    rated matches. The two halves split the ids up to the largest read first, on
    connections of their own: SQLite's writers take turns and new rows get larger ids, so together
    they hold the rows there were when that id was read, a match's games all or none."""
    engine = source if isinstance(source, Engine) and sqlite_file(source) else None
    with connection_of(source) as connection:
        # outcomes are written when their match is done; a match can be voided later
        rated = rated_matches(connection, game)
        halves = _halves(connection, game) if engine is not None else None
        if engine is None or halves is None:
            return [_columns(connection, game, None, None)], rated

    def half(ids: tuple[int, int]) -> _Columns:
        with engine.connect() as connection:
            return _columns(connection, game, *ids)

    return list(in_parallel(partial(half, halves[0]), partial(half, halves[1]))), rated


def _halves(connection: Connection, game: str) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """Two id ranges (inclusive) that split the game's outcomes, if they span over ``SPLIT_ABOVE``
    ids."""
    low, high = outcome_id_range(connection, game)
    if low is None or high is None or high - low < SPLIT_ABOVE:
        return None
    middle = (low + high + 1) // 2
    return (low, middle - 1), (middle, high)


def _columns(connection: Connection, game: str, first_id: int | None, last_id: int | None) -> _Columns:
    """The game's outcomes with ids in ``first_id..last_id`` (all of them with None), parsed."""
    texts = outcome_texts(connection, game, first_id, last_id)
    match_ids = _parse_ints(texts[0].encode("ascii"))
    deals = _parse_ints(texts[1].encode("ascii"))
    seats, seat_counts = _parse_lists(texts[2].encode("ascii"))
    ranks, rank_counts = _parse_lists(texts[3].encode("ascii"))
    if not (len(deals) == len(seat_counts) == len(rank_counts) == len(match_ids)) or np.any(
        seat_counts != rank_counts
    ):
        raise RatingsError(f"malformed outcomes of {game}: seats and ranks do not line up")
    return _Columns(match_ids, deals, seats, ranks, seat_counts)


def _parse_ints(text: bytes) -> IntArray:
    """``1,22,333`` -> the integers (non-negative, comma-separated)."""
    if not text:
        return np.zeros(0, dtype=np.int64)
    values, _, ok = _scan(np.frombuffer(text, dtype=np.uint8), False)
    if not ok:
        raise RatingsError("unexpected numbers in the stored outcomes")
    return values


def _parse_lists(text: bytes) -> tuple[IntArray, IntArray]:
    """JSON arrays of non-negative integers back to back, as written by ``json.dumps``
    (``[1, 22][333, 4, 5]``, any spacing) -> all the integers, and how many each array holds."""
    if not text:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    values, counts, ok = _scan(np.frombuffer(text, dtype=np.uint8), True)
    if not ok:
        raise RatingsError("unexpected JSON in the stored outcomes")
    return values, counts


_OUT, _OPEN, _NUMBER, _COMMA, _AFTER = range(5)
"""The scanner's states: outside an array, after ``[``, in a number, after ``,``, after a number."""


@compiled
def _scan(chars: npt.NDArray[np.uint8], arrays: bool) -> tuple[IntArray, IntArray, bool]:
    """One pass over ``chars``: comma-separated non-negative integers of at most ``_DIGIT_LIMIT``
    digits, in JSON arrays back to back if ``arrays`` (spaces allowed inside them). Returns the
    integers, how many each array holds, and whether the text was well formed (compiled by numba: a
    character at a time, where numpy needed a dozen passes over the text)."""
    values = np.empty(len(chars) // 2 + 1, dtype=np.int64)
    counts = np.empty(len(chars) // 2 + 1 if arrays else 0, dtype=np.int64)
    found = arrays_found = first = value = digits = 0
    state = _OUT if arrays else _COMMA
    for char in chars:
        if 48 <= char <= 57:
            if state == _NUMBER and digits < _DIGIT_LIMIT:
                value = value * 10 + (char - 48)
                digits += 1
            elif state in (_OPEN, _COMMA):
                value, digits, state = char - 48, 1, _NUMBER
            else:
                return values[:0], counts[:0], False
            continue
        if state == _NUMBER:
            values[found] = value
            found += 1
            state = _AFTER
        if char == 44 and state == _AFTER:  # ,
            state = _COMMA
        elif char == 32 and arrays and state != _OUT:  # a space
            pass
        elif char == 91 and state == _OUT:  # [
            state, first = _OPEN, found
        elif char == 93 and arrays and state in (_OPEN, _AFTER):  # ]
            counts[arrays_found] = found - first
            arrays_found += 1
            state = _OUT
        else:
            return values[:0], counts[:0], False
    if state == _NUMBER:
        values[found] = value
        found += 1
        state = _AFTER
    return values[:found], counts[:arrays_found], state == (_OUT if arrays else _AFTER)


def _dense(values: IntArray) -> tuple[IntArray, IntArray]:
    """The distinct values (ascending) and each value's index among them."""
    if not len(values):
        return values, values
    low, high = int(values.min()), int(values.max())
    if low >= 0 and high < 4 * len(values) + (1 << 20):
        present = np.zeros(high + 1, dtype=bool)
        present[values] = True
        index = np.cumsum(present) - 1
        return np.flatnonzero(present).astype(np.int64), index[values].astype(np.int64)
    distinct, inverse = np.unique(values, return_inverse=True)
    return distinct.astype(np.int64), inverse.astype(np.int64)
