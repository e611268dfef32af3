"""Which bots the results compare: the connected components of the game graph.

Two bots are linked when they played a game that was not a tie between all of its units (a game
everyone tied says nothing about anyone). A chain of links is what puts two ratings on one scale:
bots with no chain between them have ratings that only the prior relates, so a ladder shows them
apart rather than interleaving ranks and intervals they do not have.

The *main pool* is the component with the most bots (then the most games, then the lowest bot index);
it is labelled 0. A bot with no informative game is a component of its own.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from arena.ratings.results import IntArray, Results


def components(results: Results, n_bots: int | None = None) -> IntArray:
    """A component label per bot (``n_bots`` defaults to ``results.n_bots``): 0 for the main pool,
    then 1, 2, ... for the others, larger first."""
    n = results.n_bots if n_bots is None else n_bots
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    sizes = np.diff(results.offsets)
    played = sizes > 0
    starts = results.offsets[:-1][played]
    informative = np.zeros(results.n_games, dtype=bool)
    if len(starts):
        low = np.minimum.reduceat(results.ranks, starts)
        high = np.maximum.reduceat(results.ranks, starts)
        informative[played] = low != high
    game_of_seat = np.repeat(np.arange(results.n_games), sizes)
    first_of_seat = results.bots[results.offsets[:-1][game_of_seat]]
    keep = informative[game_of_seat]
    edges = (first_of_seat[keep], results.bots[keep])
    graph = coo_matrix((np.ones(int(keep.sum()), dtype=np.int8), edges), shape=(n, n))
    count, raw = connected_components(graph, directed=False)
    bots_in = np.bincount(raw, minlength=count)
    games_in = np.bincount(raw[results.bots[starts]], minlength=count)
    lowest = np.full(count, n, dtype=np.int64)
    np.minimum.at(lowest, raw, np.arange(n))
    order = np.lexsort((lowest, -games_in, -bots_in))
    label = np.empty(count, dtype=np.int64)
    label[order] = np.arange(count)
    return label[raw].astype(np.int64)
