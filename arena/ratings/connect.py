"""Which bots the results compare: the connected components of the game graph.

Two bots are linked when they played a game that was not a tie between all of its units (a game
everyone tied says nothing about anyone). A chain of links is what puts two ratings on one scale:
bots with no chain between them have ratings that only the prior relates, so a ladder shows them
apart rather than interleaving ranks and intervals they do not have. (In team games a link is a
comparison of team sums: two bots that only ever played on one team together are linked, yet how
their sum splits between them is the prior's. Connectivity does not see that; teams that change
partners resolve it.)

The *main pool* is the component with the most bots (then the most games played by its bots, a game
counting once for each bot seated in it; then the lowest bot index); it is labelled 0, the others 1,
2, ... in the same order. A bot with no informative game is a component of its own.

The links are joined by a compiled union-find pass over the seats (``_link``): each tree's root is its
lowest bot, so a component's label depends on which bots it holds, never on the order of the games.
"""

from __future__ import annotations

import numpy as np

from arena.ratings.kernels import compiled
from arena.ratings.results import IntArray, RatingsError, Results


def components(results: Results, n_bots: int | None = None, played: IntArray | None = None) -> IntArray:
    """A component label per bot (``n_bots`` defaults to ``results.n_bots``): 0 for the main pool,
    then 1, 2, ... for the others. ``played``: the games per bot, if already counted
    (``arena.ratings.design.Design.games_played``)."""
    n = results.n_bots if n_bots is None else n_bots
    _check(results, n)
    if played is None:
        played = np.zeros(n, dtype=np.int64)
        _count(results.offsets, results.bots, played)
    parent = np.arange(n, dtype=np.int64)
    _link(results.offsets, results.bots, results.ranks, parent)
    return _labels(parent, played)


def joined(labels: IntArray, played: IntArray, results: Results) -> IntArray:
    """The components once ``results`` are added to earlier results whose components were ``labels``
    (one per bot they had; bots past its end are new): the earlier links are kept, those of
    ``results`` added. ``played``: the games per bot of both, which sets the number of bots."""
    n = len(played)
    _check(results, n)
    parent = np.arange(n, dtype=np.int64)
    if len(labels):
        lowest = np.full(int(labels.max()) + 1, n, dtype=np.int64)
        np.minimum.at(lowest, labels, np.arange(len(labels)))
        parent[: len(labels)] = lowest[labels]
    _link(results.offsets, results.bots, results.ranks, parent)
    return _labels(parent, played)


def _check(results: Results, n_bots: int) -> None:
    """The seats the compiled passes read are there, and their bots among the ``n_bots``."""
    offsets = results.offsets
    if len(offsets) < 1 or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
        raise RatingsError("offsets must start at 0 and not decrease")
    if len(results.bots) != offsets[-1] or len(results.ranks) != offsets[-1]:
        raise RatingsError("bots and ranks need one entry per seat")
    if len(results.bots) and (results.bots.min() < 0 or results.bots.max() >= n_bots):
        raise RatingsError(f"bot indexes must be in 0..{n_bots - 1}")


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
def _link(offsets: IntArray, bots: IntArray, ranks: IntArray, parent: IntArray) -> None:
    """Joins in ``parent`` (a union-find forest whose roots are their tree's lowest bot) the bots of
    every game whose seats do not all share a rank (path halving; a root joins the lower root)."""
    for g in range(len(offsets) - 1):
        lo, hi = offsets[g], offsets[g + 1]
        mixed = False
        for seat in range(lo + 1, hi):
            if ranks[seat] != ranks[lo]:
                mixed = True
                break
        if not mixed:
            continue
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
