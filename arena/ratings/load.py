"""Reading a game's stored results (``game_outcomes``) into ``Results`` for the ladder fit, fast.

One query: the database concatenates each column over all of the game's outcomes (SQLite
``group_concat``, PostgreSQL ``string_agg``), and numpy parses the four long strings (no Python object
per row). Only outcomes of matches whose status is ``done`` count (a ``void`` match's results count for
nothing; infrastructure failures are never recorded as outcomes): a second, small query lists the
matches that are not done, and numpy drops their outcomes (a ``NOT IN`` subquery in the big query made
SQLite probe it once per outcome, a quarter of the query's time). Games that share a match and a deal
(duplicate deals) form one cluster for the error bars. Kozel's seats 0 and 2 play seats 1 and 3.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Text,
    cast,
    func,
    literal_column,
    select,
    type_coerce,
)
from sqlalchemy.orm import Session

from arena.ratings.fit import IntArray, RatingsError, Results
from arena.store.models import GameOutcome, Match, MatchStatus

TEAM_GAMES: dict[str, tuple[int, ...]] = {"kozel": (0, 1, 0, 1)}
"""Team label per seat for the team games (kozel: partners sit opposite)."""

_DIGIT_LIMIT = 18


@contextmanager
def _connection(source: Engine | Connection | Session) -> Iterator[Connection]:
    if isinstance(source, Engine):
        with source.connect() as connection:
            yield connection
    elif isinstance(source, Session):
        yield source.connection()
    else:
        yield source


def load_results(
    source: Engine | Connection | Session, game: str, *, teams: Sequence[int] | None = None
) -> Results:
    """All results of ``game`` (done matches), bot indexes mapped to ``Results.bot_ids`` (bot version
    ids, ascending), clusters by (match, deal). ``teams``: a team label per seat for every game, if it
    is a team game (default: ``TEAM_GAMES``)."""
    with _connection(source) as connection:
        texts, not_done = _fetch(connection, game)
    match_ids = _parse_ints(texts[0].encode("ascii"))
    deals = _parse_ints(texts[1].encode("ascii"))
    seats, seat_counts = _parse_lists(texts[2].encode("ascii"))
    ranks, rank_counts = _parse_lists(texts[3].encode("ascii"))
    if not (len(deals) == len(seat_counts) == len(rank_counts) == len(match_ids)) or np.any(
        seat_counts != rank_counts
    ):
        raise RatingsError(f"malformed outcomes of {game}: seats and ranks do not line up")
    if len(not_done):
        done = ~np.isin(match_ids, not_done)
        done_seats = np.repeat(done, seat_counts)
        match_ids, deals, seat_counts = match_ids[done], deals[done], seat_counts[done]
        seats, ranks = seats[done_seats], ranks[done_seats]
    n_games = len(match_ids)
    offsets = np.zeros(n_games + 1, dtype=np.int64)
    np.cumsum(seat_counts, out=offsets[1:])
    bot_ids, bots = _dense(seats)
    keys = match_ids * (int(deals.max()) + 1 if n_games else 1) + deals
    _, clusters = _dense(keys)
    labels = TEAM_GAMES.get(game) if teams is None else tuple(teams)
    team_array = None
    if labels is not None:
        if n_games and np.any(seat_counts != len(labels)):
            raise RatingsError(f"every {game} game needs {len(labels)} seats for its teams")
        team_array = np.tile(np.asarray(labels, dtype=np.int64), n_games)
    return Results(
        offsets=offsets, bots=bots, ranks=ranks, teams=team_array, clusters=clusters, bot_ids=bot_ids
    )


def _fetch(connection: Connection, game: str) -> tuple[tuple[str, str, str, str], IntArray]:
    """The game's match ids and deals (comma-separated) and seats and ranks (JSON arrays back to back),
    in one row, all in the same row order; and the ids of the matches that are not done."""
    dialect = connection.dialect.name
    as_text = (
        (lambda column: cast(column, Text)) if dialect == "postgresql" else (lambda c: type_coerce(c, Text))
    )
    columns = tuple(
        as_text(column)
        for column in (GameOutcome.match_id, GameOutcome.deal, GameOutcome.seats, GameOutcome.ranks)
    )
    # outcomes are written when their match is done; a match can be voided later
    not_done = connection.execute(select(Match.id).where(Match.status != MatchStatus.DONE)).scalars()
    not_done_ids = np.fromiter(not_done, dtype=np.int64)
    # literal separators: a bound parameter makes SQLite's group_concat several times slower
    separators: list[ColumnElement[Any]] = [literal_column(text) for text in ("','", "','", "''", "''")]
    pairs = list(zip(columns, separators, strict=True))
    if dialect in ("sqlite", "postgresql"):
        if dialect == "sqlite":  # every aggregate of one scan sees the rows in the same order
            aggregates = [func.group_concat(col, sep, type_=Text) for col, sep in pairs]
        else:
            from sqlalchemy.dialects.postgresql import aggregate_order_by

            by_id = GameOutcome.id
            aggregates = [func.string_agg(c, aggregate_order_by(s, by_id), type_=Text) for c, s in pairs]
        row = connection.execute(select(*aggregates).where(GameOutcome.game == game)).one()
        return (row[0] or "", row[1] or "", row[2] or "", row[3] or ""), not_done_ids
    rows = connection.execute(select(*columns).where(GameOutcome.game == game)).all()
    texts = (
        ",".join(str(row[0]) for row in rows),
        ",".join(str(row[1]) for row in rows),
        "".join(str(row[2]) for row in rows),
        "".join(str(row[3]) for row in rows),
    )
    return texts, not_done_ids


def _parse_ints(text: bytes) -> IntArray:
    """``1,22,333`` -> the integers (non-negative, comma-separated)."""
    if not text:
        return np.zeros(0, dtype=np.int64)
    chars = np.frombuffer(text, dtype=np.uint8)
    ends = np.flatnonzero(chars == ord(","))
    starts = np.empty(len(ends) + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = ends + 1
    ends = np.append(ends, len(chars))
    return _digits(chars, starts, ends - starts)


def _parse_lists(text: bytes) -> tuple[IntArray, IntArray]:
    """JSON arrays of non-negative integers back to back, as written by ``json.dumps``
    (``[1, 22][333, 4, 5]``) -> all the integers, and how many each array holds.

    Every number ends at a ``,`` or ``]`` and starts two characters after the previous one (``, `` or
    ``][``), or right after the first ``[``: two comparisons per character find them all (the first and
    last character of every number are checked to be digits). Other spacing (``[1,2]``) takes a
    slower general path."""
    if not text:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    chars = np.frombuffer(text, dtype=np.uint8)
    ends = np.flatnonzero((chars == ord(",")) | (chars == ord("]")))
    if chars[0] != ord("[") or chars[-1] != ord("]") or not len(ends):
        raise RatingsError("unexpected JSON in the stored outcomes")
    starts = np.empty_like(ends)
    starts[0] = 1
    starts[1:] = ends[:-1] + 2
    lengths = ends - starts
    closes = np.flatnonzero(chars[ends] == ord("]"))
    counts = np.diff(closes, prepend=-1)
    before = chars[starts[1:] - 1]
    if (
        lengths.min() < 1
        or np.any((before != ord(" ")) & (before != ord("[")))
        or np.any((chars[starts] - np.uint8(48)) >= 10)
        or np.any((chars[ends - 1] - np.uint8(48)) >= 10)
    ):
        digit = (chars - np.uint8(48)) < 10
        return _parse_lists_spaced(chars, digit, closes=np.flatnonzero(chars == ord("]")))
    return _digits(chars, starts, lengths), counts.astype(np.int64)


def _parse_lists_spaced(
    chars: npt.NDArray[np.uint8], digit: npt.NDArray[np.bool_], closes: IntArray
) -> tuple[IntArray, IntArray]:
    """The general path: every run of digits is a number; a ``]`` closes an array."""
    allowed = digit | (chars == ord(",")) | (chars == ord("[")) | (chars == ord("]")) | (chars == ord(" "))
    if not allowed.all():
        raise RatingsError("unexpected JSON in the stored outcomes")
    edges = np.diff(digit.view(np.int8), prepend=np.int8(0), append=np.int8(0))
    starts = np.flatnonzero(edges == 1)
    lengths = np.flatnonzero(edges == -1) - starts
    counts = np.diff(np.searchsorted(starts, closes), prepend=0)
    return _digits(chars, starts, lengths), counts.astype(np.int64)


def _digits(chars: npt.NDArray[np.uint8], starts: IntArray, lengths: IntArray) -> IntArray:
    """The decimal numbers at ``chars[starts[i] : starts[i] + lengths[i]]``."""
    if not len(starts):
        return np.zeros(0, dtype=np.int64)
    longest = int(lengths.max())
    if int(lengths.min()) < 1 or longest > _DIGIT_LIMIT:
        raise RatingsError("unexpected numbers in the stored outcomes")
    if longest == 1:
        return (chars[starts] - np.uint8(48)).astype(np.int64)
    if longest <= 8:
        return _swar(chars, starts, lengths)
    padded = np.concatenate([chars, np.zeros(longest, dtype=np.uint8)])
    values = (padded[starts] - np.uint8(48)).astype(np.int64)
    for j in range(1, longest):  # Horner, one digit column at a time
        step = values * 10 + (padded[starts + j] - np.uint8(48))
        np.copyto(values, step, where=lengths > j)
    return values


def _swar(chars: npt.NDArray[np.uint8], starts: IntArray, lengths: IntArray) -> IntArray:
    """Numbers of at most 8 digits: read the 4 or 8 bytes at each start as one little-endian word, keep
    the number's digits, right-align them and combine digits pairwise with multiplications (SWAR)."""
    if sys.byteorder != "little":
        raise RatingsError("big-endian machines are not supported")
    wide = int(lengths.max()) > 4
    kind: Any = np.uint64 if wide else np.uint32
    size = 8 if wide else 4
    padded = np.concatenate([chars, np.zeros(size, dtype=np.uint8)])
    words: npt.NDArray[Any] = np.ndarray((len(chars),), dtype=kind, buffer=padded.data, strides=(1,))[starts]
    keep: npt.NDArray[Any] = (size - lengths).astype(kind)
    keep <<= kind(3)
    np.left_shift(words, keep, out=words)  # the number's digits in the top bytes, the last one on top
    np.subtract(words, kind(int.from_bytes(b"0" * size, "little")) << keep, out=words)
    steps = [
        (0x0F0F0F0F0F0F0F0F, 2561, 8),
        (0x00FF00FF00FF00FF, 6553601, 16),
        (0x0000FFFF0000FFFF, 42949672960001, 32),
    ]
    for mask, factor, shift in steps[: 3 if wide else 2]:
        np.bitwise_and(words, kind(mask & (1 << 8 * size) - 1), out=words)
        np.multiply(words, kind(factor), out=words)
        np.right_shift(words, kind(shift), out=words)
    return words.astype(np.int64)


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
