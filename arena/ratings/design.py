"""The design: a game's results arranged for fast evaluation of the likelihood (``build_design``).

Identical games are merged into one weighted game, and distinct ones grouped into position-major
layouts of equal shape, evaluated by compiled passes (``arena.ratings.kernels``) on two threads
(``Design.in_halves``). Tie groups that are not the last places (``Ties``) and games that share a
cluster (``ClusteredGames``) are listed apart. Games are ordered by a hash of their content before
any floating-point sum, so any permutation of the same results gives identical numbers.

In full: docs/ratings-model.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from arena.ratings import kernels
from arena.ratings.results import FloatArray, IntArray, RatingsError, Results
from arena.ratings.threads import in_parallel, two_groups

if TYPE_CHECKING:
    from arena.ratings.likelihood import Work

_Half = TypeVar("_Half")


@dataclass(frozen=True, eq=False)
class Ties:
    """Tie groups of ``size`` units that are not the last places: layout rows and start positions."""

    size: int
    rows: IntArray
    start: IntArray


@dataclass(frozen=True, eq=False)
class Layout:
    """Distinct games with ``n`` units of at most ``k`` members, units sorted best first."""

    n: int
    k: int
    weight: FloatArray
    """(G,) how many stored games each row stands for."""
    members: IntArray
    """(n, k, G) bot index per place and member slot; the padding index ``n_bots`` has log-strength 0."""
    plain: FloatArray
    """(n, G) 1.0 where a lone unit takes its place from the units at and after it (a Luce choice)."""
    notplain: FloatArray
    """``1 - plain``."""
    ties: tuple[Ties, ...]

    def thinned(self, stride: int) -> Layout:
        """About one game in ``stride``: each row's weight divided by ``stride``, the remainders
        spread over the rows deterministically (rows left with no weight are dropped)."""
        weight = (self.weight.astype(np.int64) + np.arange(len(self.weight)) % stride) // stride
        keep = np.flatnonzero(weight > 0)
        new_row = np.cumsum(weight > 0) - 1
        ties = []
        for group in self.ties:
            mine = weight[group.rows] > 0
            ties.append(Ties(group.size, new_row[group.rows[mine]], group.start[mine]))
        return Layout(
            n=self.n,
            k=self.k,
            weight=weight[keep].astype(np.float64),
            members=np.ascontiguousarray(self.members[:, :, keep]),
            plain=self.plain[:, keep],
            notplain=self.notplain[:, keep],
            ties=tuple(ties),
        )


@dataclass(frozen=True, eq=False)
class ClusteredGames:
    """The stored games that share a cluster with another game, sorted by cluster then content: each
    one's dense cluster label and its distinct game (layout and row)."""

    cluster: IntArray
    layout: IntArray
    row: IntArray


@dataclass(frozen=True, eq=False)
class Design:
    """A game's results as the likelihood reads them: the distinct games in layouts, over ``n_bots``
    bots (and a padding index ``n_bots`` of log-strength 0), the games each bot played, the games that
    share a cluster, and the likelihood's scratch arrays per layout (``work``, kept across
    evaluations)."""

    n_bots: int
    layouts: tuple[Layout, ...]
    n_games: int
    """Stored games."""
    games_played: IntArray
    clustered: ClusteredGames | None
    """None when no cluster holds two games."""
    work: dict[int, Work] = field(default_factory=dict, repr=False)

    @property
    def n_rows(self) -> int:
        """Distinct games."""
        return sum(len(lay.weight) for lay in self.layouts)

    @cached_property
    def groups(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The layouts in two groups of about equal work (the Hessian's unit pairs x members squared,
        per distinct game), evaluated on two threads. Fixed by the design, not by the machine, so the
        sums come out the same to the last bit everywhere."""
        cost = [(lay.n * (lay.n + 1) // 2 * lay.k * lay.k + lay.n) * len(lay.weight) for lay in self.layouts]
        first, second = two_groups(cost)
        return tuple(sorted(first)), tuple(sorted(second))

    def in_halves(self, work: Callable[[tuple[int, ...]], _Half]) -> tuple[_Half, _Half]:
        """``work`` over each group of layout indices (``groups``): on two threads at once where this
        process may use two CPUs (the compiled kernels release the GIL), else one after the other;
        the same results either way."""
        first, second = self.groups
        if not second:
            return work(first), work(second)
        return in_parallel(partial(work, first), partial(work, second))

    def thinned(self, stride: int) -> Design:
        """A subsample of about one game in ``stride``, for a cheap first estimate (see
        ``Layout.thinned``: games, not distinct games, are sampled, so frequent outcomes keep their
        share)."""
        return replace(self, layouts=tuple(lay.thinned(stride) for lay in self.layouts), work={})


def build_design(results: Results, n_bots: int) -> Design:
    """The design of ``results``: identical games merged, per seat count on two threads (each seat
    count's games alone, so the design is the same either way), then layouts of equal shape, built
    on one thread while the other sorts the games by cluster."""
    sizes = _validate(results, n_bots)
    n_games = results.n_games
    teams = np.zeros(0, dtype=np.int64) if results.teams is None else results.teams
    seat_counts = np.bincount(sizes)
    present = np.flatnonzero(seat_counts).tolist()
    halves = two_groups([int(seat_counts[n]) * n for n in present])

    def seat_groups(indexes: list[int]) -> list[tuple[int, _SeatGroup]]:
        return [(present[i], _seat_group(results, sizes, teams, n_bots, present[i])) for i in indexes]

    first, second = in_parallel(partial(seat_groups, halves[0]), partial(seat_groups, halves[1]))
    game_hash = np.zeros(n_games, dtype=np.uint64)
    game_distinct = np.zeros(n_games, dtype=np.int64)
    pieces: dict[tuple[int, int], list[tuple[IntArray, IntArray, IntArray, IntArray]]] = {}
    distinct_total = 0
    for _, group in sorted(first + second, key=lambda pair: pair[0]):
        game_hash[group.rows] = group.hashes
        game_distinct[group.rows] = distinct_total + group.distinct
        for shape, ids, counts, members, unit_ranks in group.pieces:
            pieces.setdefault(shape, []).append((distinct_total + ids, counts, members, unit_ranks))
        distinct_total += group.n_distinct

    shapes = sorted(pieces)
    distinct_layout = np.zeros(distinct_total, dtype=np.int64)
    distinct_row = np.zeros(distinct_total, dtype=np.int64)
    for index, shape in enumerate(shapes):
        ids = np.concatenate([part[0] for part in pieces[shape]])
        distinct_layout[ids] = index
        distinct_row[ids] = np.arange(len(ids))

    def layouts() -> tuple[list[Layout], FloatArray]:
        made: list[Layout] = []
        played = np.zeros(n_bots + 1)
        for n, k in shapes:
            parts = pieces[(n, k)]
            weight = np.concatenate([part[1] for part in parts]).astype(np.float64)
            members = np.concatenate([part[2] for part in parts], axis=2)
            unit_ranks = np.concatenate([part[3] for part in parts], axis=1)
            made.append(_layout(n, k, weight, members, unit_ranks))
            kernels.add_played(made[-1].members.reshape(n * k, -1), weight, n_bots, played)
        return made, played

    def clustered() -> ClusteredGames | None:
        return _clustered_games(
            results, game_hash, distinct_layout[game_distinct], distinct_row[game_distinct]
        )

    (made, played), games = in_parallel(layouts, clustered)
    return Design(
        n_bots=n_bots,
        layouts=tuple(made),
        n_games=n_games,
        games_played=np.rint(played[:n_bots]).astype(np.int64),
        clustered=games,
    )


def _validate(results: Results, n_bots: int) -> IntArray:
    """Checks the arrays; returns the seats per game."""
    offsets = results.offsets
    if offsets.ndim != 1 or len(offsets) < 1 or offsets[0] != 0:
        raise RatingsError("offsets must start at 0")
    sizes = np.diff(offsets)
    if len(sizes) and (sizes.min() < 1 or sizes.max() > kernels.MAX_SEATS):
        raise RatingsError(f"every game needs 1..{kernels.MAX_SEATS} seats")
    seats = int(offsets[-1])
    if len(results.bots) != seats or len(results.ranks) != seats:
        raise RatingsError("bots and ranks need one entry per seat")
    if results.teams is not None and len(results.teams) != seats:
        raise RatingsError("teams need one entry per seat")
    if results.clusters is not None and len(results.clusters) != len(sizes):
        raise RatingsError("clusters need one entry per game")
    if n_bots > kernels.BOT_MASK:
        raise RatingsError("too many bots")
    if seats:
        if results.bots.min() < 0 or results.bots.max() >= n_bots:
            raise RatingsError(f"bot indexes must be in 0..{n_bots - 1}")
        if results.ranks.min() < 0 or (results.teams is not None and results.teams.min() < 0):
            raise RatingsError("ranks and team labels must not be negative")
    return sizes


@dataclass(frozen=True, eq=False)
class _SeatGroup:
    """The games of one seat count: their rows sorted by hash, the hashes, each one's distinct game
    (numbered from 0 within the group), and the distinct games per shape (units, member slots): their
    numbers, counts, members and unit ranks."""

    rows: IntArray
    hashes: npt.NDArray[np.uint64]
    distinct: IntArray
    n_distinct: int
    pieces: list[tuple[tuple[int, int], IntArray, IntArray, IntArray, IntArray]]


def _seat_group(results: Results, sizes: IntArray, teams: IntArray, n_bots: int, n_seats: int) -> _SeatGroup:
    u64 = np.uint64
    rows = np.flatnonzero(sizes == n_seats)
    keys, hashes = kernels.canonical(results.offsets, rows, results.bots, results.ranks, teams, n_seats)
    if int(keys[-1].max()) >> (kernels.BOT_BITS + kernels.LABEL_BITS) >= n_seats:
        raise RatingsError(f"ranks of {n_seats}-seat games must be below {n_seats}")
    # identical games, found by sorting on the hash and comparing neighbours in full
    order = np.argsort(hashes)
    keys, hashes, rows = keys[:, order], hashes[order], rows[order]
    new = np.ones(len(rows), dtype=bool)
    new[1:] = (hashes[1:] != hashes[:-1]) | (keys[:, 1:] != keys[:, :-1]).any(axis=0)
    distinct = np.cumsum(new) - 1
    counts = np.bincount(distinct)
    ids = np.arange(len(counts), dtype=np.int64)
    seats = keys[:, new]  # (n_seats, distinct games)
    bots = (seats & u64(kernels.BOT_MASK)).astype(np.int64)
    ranks = (seats >> u64(kernels.BOT_BITS + kernels.LABEL_BITS)).astype(np.int64)
    if results.teams is None:
        pieces = [((n_seats, 1), ids, counts, bots[:, None, :], ranks)]
    else:
        labels = ((seats >> u64(kernels.BOT_BITS)) & u64(kernels.LABEL_MASK)).astype(np.int64)
        if int(labels.max()) >= n_seats:
            raise RatingsError(f"team labels of {n_seats}-seat games must be below {n_seats}")
        pieces = [
            (shape, ids[pick], counts[pick], members, unit_ranks)
            for shape, pick, members, unit_ranks in _units(bots, ranks, labels, n_bots)
        ]
    return _SeatGroup(rows, hashes, distinct, len(counts), pieces)


def _clustered_games(
    results: Results, hashes: npt.NDArray[np.uint64], layout: IntArray, row: IntArray
) -> ClusteredGames | None:
    """The games sharing a cluster with another, sorted by cluster label and content."""
    labels = results.clusters
    if labels is None or not len(labels):
        return None
    if labels.min() < 0 or labels.max() >= max(4 * len(labels), 1 << 20):
        labels = np.unique(labels, return_inverse=True)[1].astype(np.int64)
    sizes = np.bincount(labels)
    keep = np.flatnonzero(sizes[labels] > 1)
    if not len(keep):
        return None
    u64 = np.uint64
    order = keep[np.argsort((labels[keep].astype(u64) << u64(40)) | (hashes[keep] >> u64(24)))]
    return ClusteredGames(cluster=labels[order], layout=layout[order], row=row[order])


def _units(
    bots: IntArray, ranks: IntArray, labels: IntArray, n_bots: int
) -> Iterable[tuple[tuple[int, int], IntArray, IntArray, IntArray]]:
    """Seats (n_seats, G), sorted by rank then team label, grouped into teams: per shape (units,
    member slots), the games' columns, members (n_u, k, G') and unit ranks (n_u, G')."""
    n_seats, count = bots.shape
    for i in range(n_seats):
        for j in range(i + 1, n_seats):
            if np.any((labels[i] == labels[j]) & (ranks[i] != ranks[j])):
                raise RatingsError("the seats of a team must share a rank")
    new_unit = np.ones((n_seats, count), dtype=bool)
    new_unit[1:] = labels[1:] != labels[:-1]
    left = np.ones(count, dtype=bool)
    for k in range(1, n_seats + 1):
        if n_seats % k:
            continue
        pattern = (np.arange(n_seats) % k == 0)[:, None]
        regular = left & np.all(new_unit == pattern, axis=0)
        if regular.any():
            pick = np.flatnonzero(regular)
            n_u = n_seats // k
            yield (n_u, k), pick, bots[:, pick].reshape(n_u, k, len(pick)), ranks[::k, pick]
            left &= ~regular
    if not left.any():
        return
    pick = np.flatnonzero(left)
    unit = np.cumsum(new_unit[:, pick], axis=0) - 1
    first = np.maximum.accumulate(np.where(new_unit[:, pick], np.arange(n_seats)[:, None], 0), axis=0)
    slot = np.arange(n_seats)[:, None] - first
    shape_key = (unit[-1] + 1) * (n_seats + 1) + slot.max(axis=0) + 1
    for key in np.unique(shape_key).tolist():
        n_u, k = divmod(int(key), n_seats + 1)
        sub = np.flatnonzero(shape_key == key)
        members = np.full((n_u, k, len(sub)), n_bots, dtype=np.int64)
        unit_ranks = np.zeros((n_u, len(sub)), dtype=np.int64)
        here = np.arange(len(sub))[None, :]
        members[unit[:, sub], slot[:, sub], here] = bots[:, pick[sub]]
        unit_ranks[unit[:, sub], here] = ranks[:, pick[sub]]
        yield (n_u, k), pick[sub], members, unit_ranks


def _layout(n: int, k: int, weight: FloatArray, members: IntArray, unit_ranks: IntArray) -> Layout:
    count = len(weight)
    start = np.ones((n, count), dtype=bool)
    start[1:] = unit_ranks[1:] != unit_ranks[:-1]
    end = np.ones((n, count), dtype=bool)
    end[:-1] = start[1:]
    plain = start & end
    plain[n - 1] = False
    by_size: dict[int, tuple[list[IntArray], list[IntArray]]] = {}
    for q in range(n - 2):
        size = np.ones(count, dtype=np.int64)
        for j in range(q + 1, n - 1):
            size += unit_ranks[j] == unit_ranks[q]
        middle = start[q] & (size >= 2) & (unit_ranks[n - 1] != unit_ranks[q])
        for t in np.unique(size[middle]).tolist():
            rows = np.flatnonzero(middle & (size == t))
            lists = by_size.setdefault(int(t), ([], []))
            lists[0].append(rows)
            lists[1].append(np.full(len(rows), q, dtype=np.int64))
    ties = tuple(
        Ties(t, np.concatenate(rows), np.concatenate(starts)) for t, (rows, starts) in sorted(by_size.items())
    )
    return Layout(
        n=n,
        k=k,
        weight=weight,
        members=np.ascontiguousarray(members),
        plain=plain.astype(np.float64),
        notplain=(~plain).astype(np.float64),
        ties=ties,
    )
