"""Which bots the results compare: the connected components of the game graph.

Two bots are linked when they played a game that was not a tie between all of its units; only a chain
of links puts two ratings on one scale, so a ladder shows bots with no chain to the main pool apart.
The main pool (labelled 0) is grown from the ladder's anchors (``anchors``, ``anchored``: the bots
that played at least ``MIN_OPPONENTS`` of its bots), or is the largest component where no anchor has
played. The links are joined by a compiled union-find pass (``_link``), so a component's label
never depends on the order of the games.

Why, and the rules in full: docs/ratings-model.md.
"""

from __future__ import annotations

import numpy as np

from arena.ratings.kernels import compiled
from arena.ratings.results import BoolArray, IntArray, RatingsError, Results

MIN_OPPONENTS = 3
"""A bot joins the anchors' main pool once it has played this many distinct bots of it."""


def components(
    results: Results,
    n_bots: int | None = None,
    played: IntArray | None = None,
    anchors: BoolArray | None = None,
    lineage: IntArray | None = None,
) -> IntArray:
    """A component label per bot (``n_bots`` defaults to ``results.n_bots``): 0 for the main pool,
    then 1, 2, ... for the others. ``played``: the games per bot, if already counted
    (``arena.ratings.design.Design.games_played``); ``anchors``: per bot, whether it is one of the
    ladder's anchors (docs/ratings-model.md); ``lineage``: per bot, its predecessor's index or -1
    (a version is where its predecessor is)."""
    n = results.n_bots if n_bots is None else n_bots
    _check(results, n)
    if played is None:
        played = np.zeros(n, dtype=np.int64)
        _count(results.offsets, results.bots, played)
    if anchors is not None and np.any(anchors & (played > 0)):
        return anchored(opponents(results, n), anchors, played, lineage)
    parent = np.arange(n, dtype=np.int64)
    _link(results.offsets, results.bots, _mixed(results), parent)
    _inherit(parent, lineage)
    return _labels(parent, played)


def opponents(results: Results, n_bots: int) -> BoolArray:
    """Which bots played which (``n_bots`` square, symmetric; docs/ratings-model.md)."""
    _check(results, n_bots)
    met = np.zeros((n_bots, n_bots), dtype=np.bool_)
    teams = results.teams
    if teams is None:  # free-for-all: every seat its own side
        teams = np.arange(len(results.bots), dtype=np.int64)
    _meet(results.offsets, results.bots, _mixed(results), teams, met)
    return met


def anchored(
    met: BoolArray, anchors: BoolArray, played: IntArray, lineage: IntArray | None = None
) -> IntArray:
    """Component labels with the anchors' pool as the main pool: the anchors that played in the part
    of the graph (who ``met`` whom, and the versions' links) that holds most of them (then the first
    such part by its lowest bot: anchors that never met are not on one scale), grown by
    every bot that ``met`` (``opponents``) at least ``MIN_OPPONENTS`` of the pool (all of it while it
    holds fewer: edible has two built-in bots), and every version
    whose predecessor (``lineage``) is in it, until none joins; the other bots grouped by whom they
    met among themselves (a partner alone links nobody here) and by their versions."""
    import scipy.sparse.csgraph as csgraph  # type: ignore[import-untyped]

    linked = np.flatnonzero(lineage >= 0) if lineage is not None else np.zeros(0, dtype=np.int64)
    graph = met.copy()
    if lineage is not None:
        graph[linked, lineage[linked]] = graph[lineage[linked], linked] = True
    whole = csgraph.connected_components(graph, directed=False)[1]
    seeds = anchors & (played > 0)
    counts = np.bincount(whole[seeds], minlength=int(whole.max()) + 1 if len(whole) else 0)
    pool = seeds & (whole == int(np.argmax(counts))) if len(counts) else seeds
    while True:
        needed = min(MIN_OPPONENTS, int(np.count_nonzero(pool)))  # all of a pool smaller than that
        grown = pool | (np.count_nonzero(met[:, pool], axis=1) >= needed)
        if lineage is not None:
            grown[linked] |= pool[lineage[linked]]
        if np.array_equal(grown, pool):
            break
        pool = grown
    rest = np.flatnonzero(~pool)
    group = csgraph.connected_components(graph[np.ix_(rest, rest)], directed=False)[1]
    lowest = np.full(len(rest), len(played), dtype=np.int64)
    np.minimum.at(lowest, group, rest)
    parent = np.arange(len(played), dtype=np.int64)
    parent[rest] = lowest[group]
    others = _labels(parent, np.where(pool, -1, played))  # the pool's bots last, as singletons
    label = np.zeros(len(played), dtype=np.int64)
    label[rest] = 1 + np.searchsorted(np.unique(others[rest]), others[rest])
    return label


def joined(labels: IntArray, played: IntArray, results: Results, lineage: IntArray | None = None) -> IntArray:
    """The components once ``results`` are added to earlier results whose components were ``labels``
    (one per bot they had; bots past its end are new): the earlier links are kept, those of
    ``results`` added (and those of ``lineage``). ``played``: the games per bot of both, which sets
    the number of bots."""
    n = len(played)
    _check(results, n)
    parent = np.arange(n, dtype=np.int64)
    if len(labels):
        lowest = np.full(int(labels.max()) + 1, n, dtype=np.int64)
        np.minimum.at(lowest, labels, np.arange(len(labels)))
        parent[: len(labels)] = lowest[labels]
    _link(results.offsets, results.bots, _mixed(results), parent)
    _inherit(parent, lineage)
    return _labels(parent, played)


def _inherit(parent: IntArray, lineage: IntArray | None) -> None:
    """Joins in ``parent`` (a union-find forest whose roots are their tree's lowest bot) every version
    with its predecessor (``lineage``)."""
    if lineage is None:
        return

    def root(bot: int) -> int:
        while parent[bot] != bot:
            bot = int(parent[bot])
        return bot

    for child in np.flatnonzero(lineage >= 0).tolist():
        one, other = root(child), root(int(lineage[child]))
        parent[max(one, other)] = min(one, other)


def _check(results: Results, n_bots: int) -> None:
    """The seats the compiled passes read are there, and their bots among the ``n_bots``."""
    offsets = results.offsets
    if len(offsets) < 1 or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
        raise RatingsError("offsets must start at 0 and not decrease")
    if len(results.bots) != offsets[-1] or len(results.ranks) != offsets[-1]:
        raise RatingsError("bots and ranks need one entry per seat")
    if len(results.bots) and (results.bots.min() < 0 or results.bots.max() >= n_bots):
        raise RatingsError(f"bot indexes must be in 0..{n_bots - 1}")


def _mixed(results: Results) -> BoolArray:
    """Per game, whether its seats do not all share a rank (a game everyone tied links nobody)."""
    sizes = np.diff(results.offsets)
    mixed = np.zeros(len(sizes), dtype=np.bool_)
    starts = results.offsets[:-1][sizes > 0]
    if len(starts):
        ranks = results.ranks
        mixed[sizes > 0] = np.maximum.reduceat(ranks, starts) != np.minimum.reduceat(ranks, starts)
    return mixed


def _labels(parent: IntArray, played: IntArray) -> IntArray:
    """Labels from a union-find forest whose roots are their tree's lowest bot (every parent below
    its child), main pool first."""
    while True:  # pointer jumping: every bot to its root
        grand = parent[parent]
        if np.array_equal(grand, parent):
            break
        parent = grand
    n = len(parent)
    bots_in = np.bincount(parent, minlength=n)
    games_in = np.bincount(parent, weights=played, minlength=n)
    roots = np.flatnonzero(bots_in)
    order = roots[np.lexsort((roots, -games_in[roots], -bots_in[roots]))]
    label = np.zeros(n, dtype=np.int64)
    label[order] = np.arange(len(order))
    return label[parent]


@compiled
def _link(offsets: IntArray, bots: IntArray, mixed: BoolArray, parent: IntArray) -> None:
    """Joins in ``parent`` (a union-find forest whose roots are their tree's lowest bot) the bots of
    every ``mixed`` game (``_mixed``; path halving; a root joins the lower root)."""
    for g in range(len(offsets) - 1):
        if not mixed[g]:
            continue
        lo, hi = offsets[g], offsets[g + 1]
        first = bots[lo]
        while parent[first] != first:
            parent[first] = parent[parent[first]]
            first = parent[first]
        for seat in range(lo + 1, hi):
            other = bots[seat]
            while parent[other] != other:
                parent[other] = parent[parent[other]]
                other = parent[other]
            if other > first:
                parent[other] = first
            elif other < first:
                parent[first] = other
                first = other


@compiled
def _count(offsets: IntArray, bots: IntArray, played: IntArray) -> None:
    """``played[b] += 1`` for every game with bot b seated, however many seats it takes."""
    for g in range(len(offsets) - 1):
        lo, hi = offsets[g], offsets[g + 1]
        for seat in range(lo, hi):
            seen = False
            for before in range(lo, seat):
                seen = seen or bots[before] == bots[seat]
            if not seen:
                played[bots[seat]] += 1


@compiled
def _meet(offsets: IntArray, bots: IntArray, mixed: BoolArray, teams: IntArray, met: BoolArray) -> None:
    """``met[a, b]`` for every two bots on different sides (``teams``) of a ``mixed`` game."""
    for g in range(len(offsets) - 1):
        if not mixed[g]:
            continue
        lo, hi = offsets[g], offsets[g + 1]
        for one in range(lo, hi):
            for other in range(one + 1, hi):
                if teams[one] != teams[other] and bots[one] != bots[other]:
                    met[bots[one], bots[other]] = True
                    met[bots[other], bots[one]] = True
