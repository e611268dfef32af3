"""Error bars from the information at the optimum, as ``arena.ratings.model`` defines them.

``build_ladder`` makes the fitted ``Ladder``: each bot's standard error as a difference from the main
pool's mean, cluster-corrected and floored; ``cluster_term`` is the cluster correction's cross term
``C``. The model-based variances come from the inverse of the information's Cholesky factor (one
triangular inverse), the full inverse being built only where the correction needs it. The cross term
of clusters whose games share one line-up (duplicate deals: the same bots replaying a deal) is summed
slot by slot by a compiled pass (``arena.ratings.kernels.cluster_cross``), a match's deals next to each
other added up before they are spread over the bots; any other cluster falls back on a sparse product.
"""

from __future__ import annotations

import time

import numpy as np
import numpy.typing as npt

from arena.ratings import kernels, linalg
from arena.ratings.design import ClusteredGames, Design, Layout
from arena.ratings.model import ELO_MEAN, ELO_PER_NAT, Z95, Ladder
from arena.ratings.results import BoolArray, FloatArray, IntArray, Results

VARIANCE_FLOOR = 0.25
"""A cluster-corrected variance is never below this share of the model-based one."""


def build_ladder(
    theta: FloatArray,
    information: FloatArray,
    factor: FloatArray,
    correction: FloatArray | None,
    games: IntArray,
    component: IntArray,
    loglik: float,
    iterations: int,
    converged: bool,
    started: float,
    bot_ids: IntArray | None,
    prior_games: float,
    provisional_halfwidth: float,
    inverse: FloatArray | None = None,
    fitted: Ladder | None = None,
    added: Results | None = None,
    anchors: BoolArray | None = None,
    opponents: BoolArray | None = None,
    lineage: IntArray | None = None,
    changed: BoolArray | None = None,
) -> Ladder:
    """Standard errors, Elo (as differences from the mean of the main pool's bots with games) and
    flags. ``component``: per bot, its component of the game graph (``arena.ratings.connect``, 0 for
    the main pool); ``correction``: the covariance's cluster correction;
    ``inverse``: the information's inverse if already made; ``fitted`` and ``added``: for an update,
    the full fit it updates and the results added since; ``anchors`` and ``opponents``: the ladder's
    anchors and who played whom (``arena.ratings.connect``), where the main pool is the anchors';
    ``lineage`` and ``changed``: the versions' predecessors and which links are loose."""
    main = component == 0
    pool = main & (games > 0)
    weights = pool / max(int(pool.sum()), 1)
    model_var = contrast_variances(factor, weights)
    var = model_var
    if correction is not None:
        cw = correction @ weights
        extra = np.diag(correction) - 2.0 * cw + float(weights @ cw)
        var = np.maximum(model_var + extra, VARIANCE_FLOOR * model_var)
    se = ELO_PER_NAT * np.sqrt(var)
    mean = float(theta @ weights)
    ladder = Ladder(
        theta=theta,
        elo=ELO_MEAN + ELO_PER_NAT * (theta - mean),
        se=se,
        model_se=ELO_PER_NAT * np.sqrt(model_var),
        games=games,
        component=component,
        provisional=(Z95 * se > provisional_halfwidth) | ~main | (int(pool.sum()) < 2),
        loglik=loglik,
        iterations=iterations,
        converged=converged,
        seconds=time.perf_counter() - started,
        information=information,
        factor=factor,
        correction=correction,
        bot_ids=bot_ids,
        prior_games=prior_games,
        provisional_halfwidth=provisional_halfwidth,
        fitted=fitted,
        added=added,
        anchors=anchors,
        opponents=opponents,
        lineage=lineage,
        changed=changed,
    )
    if inverse is not None:
        ladder.__dict__["inverse"] = inverse  # fill the cache: it was needed for the correction
    return ladder


def contrast_variances(factor: FloatArray, weights: FloatArray) -> FloatArray:
    """The model-based variance of each bot's log-strength as a difference from the ``weights``-weighted
    mean (the main pool's), from the information's upper Cholesky factor: one triangular inverse R
    (the inverse information is R R')."""
    root = linalg.root(factor)
    root_w = root.T @ weights
    inv_w = root @ root_w
    variance: FloatArray = np.maximum(
        np.einsum("ij,ij->i", root, root) - 2.0 * inv_w + float(root_w @ root_w), 0.0
    )
    return variance


def cluster_term(design: Design, unit_grads: list[FloatArray]) -> FloatArray | None:
    """C = sum over clusters c of (g_c g_c' - sum_{i in c} g_i g_i'): the cross products of different
    games' scores within a cluster, in bot space; None when no cluster holds two games.

    Clusters whose games share one line-up (duplicate deals: the same bots replaying a deal) are summed
    slot by slot; any other cluster falls back on a sparse product."""
    games = design.clustered
    if games is None:
        return None
    n_bots = design.n_bots
    stride = n_bots + 1

    def find_slots(indices: tuple[int, ...]) -> dict[int, tuple[IntArray, npt.NDArray[np.uint64]]]:
        return {index: _slots(design.layouts[index]) for index in indices if (games.layout == index).any()}

    halves = design.in_halves(find_slots)
    slots = {index: found[0] for half in halves for index, found in half.items()}
    lineup = np.zeros(len(games.row), dtype=np.uint64)
    for half in halves:
        for index, (_, lay_lineup) in half.items():
            mine = games.layout == index
            lineup[mine] = lay_lineup[games.row[mine]]
    same = games.cluster[1:] == games.cluster[:-1]
    odd = same & ((games.layout[1:] != games.layout[:-1]) | (lineup[1:] != lineup[:-1]))
    irregular = np.isin(games.cluster, games.cluster[1:][odd])

    def add_cross(lay: Layout, ug: FloatArray, slot_of: IntArray, index: int, square: FloatArray) -> None:
        n, k = lay.n, lay.k
        pick = np.flatnonzero((games.layout == index) & ~irregular)
        if not len(pick):
            return
        rows = games.row[pick]
        first = np.ones(len(pick), dtype=bool)
        first[1:] = games.cluster[pick[1:]] != games.cluster[pick[:-1]]
        starts = np.flatnonzero(first)
        cross = kernels.cluster_cross(ug, slot_of, rows, starts)
        # clusters of one line-up next to each other (a match's deals) are summed before the scatter
        change = np.ones(len(starts), dtype=bool)
        change[1:] = lineup[pick[starts[1:]]] != lineup[pick[starts[:-1]]]
        runs = np.flatnonzero(change)
        cross = np.add.reduceat(cross, runs, axis=1)
        lead = rows[starts[runs]]  # each run's first game: its bots by slot
        if k == 1:
            bots = np.ascontiguousarray(np.sort(lay.members[:, 0, lead], axis=0)[:, None, :])
        else:
            bots = np.empty((n, k, len(runs)), dtype=np.int64)
            bots[slot_of[:, lead], :, np.arange(len(runs))[None, :]] = lay.members[:, :, lead].transpose(
                0, 2, 1
            )
        kernels.scatter_pairs(cross, bots, square)

    def cross_sums(indices: tuple[int, ...]) -> FloatArray:
        square = np.zeros((stride, stride))
        for index in indices:
            if index in slots:
                add_cross(design.layouts[index], unit_grads[index], slots[index], index, square)
        return square

    one, other = design.in_halves(cross_sums)
    square = one + other
    term = (square + square.T)[:n_bots, :n_bots]
    if irregular.any():
        term += _sparse_cross(design, unit_grads, games, irregular)
    return np.asarray(term, dtype=np.float64)


def _slots(lay: Layout) -> tuple[IntArray, npt.NDArray[np.uint64]]:
    """A canonical order of each distinct game's units that does not depend on the finish (by their
    members): the slot of each place (n, G), and a hash of the line-up (G,), equal for games of the
    same line-up (the same units, in any places)."""
    k = lay.k
    u64 = np.uint64
    members = np.sort(lay.members, axis=1) if k > 1 else lay.members
    keys = members[:, 0, :].astype(u64)
    for j in range(1, k):
        keys = keys * u64(0x100000001B3) + members[:, j, :].astype(u64)
    slot_of = kernels.slot_order(keys)
    mixed = keys * u64(0xBF58476D1CE4E5B9)
    mixed ^= mixed >> u64(31)
    mixed *= u64(0x94D049BB133111EB)
    return slot_of, mixed.sum(axis=0, dtype=u64)


def _sparse_cross(
    design: Design, unit_grads: list[FloatArray], games: ClusteredGames, pick: BoolArray
) -> FloatArray:
    """The cluster term of the picked games' clusters by a sparse product (clusters of mixed line-ups)."""
    import scipy.sparse as sps  # type: ignore[import-untyped]

    stride = design.n_bots + 1
    square = np.zeros((stride, stride))
    entry_cluster, entry_bot, entry_value = [], [], []
    for index, (lay, ug) in enumerate(zip(design.layouts, unit_grads, strict=True)):
        mine = np.flatnonzero(pick & (games.layout == index))
        if not len(mine):
            continue
        rows = games.row[mine]
        members = np.ascontiguousarray(lay.members[:, :, rows])
        g = ug[:, rows]
        entry_cluster.append(np.broadcast_to(games.cluster[mine], members.shape).ravel())
        entry_bot.append(members.ravel())
        entry_value.append(np.broadcast_to(g[:, None, :], members.shape).ravel())
        pu, ru = np.triu_indices(lay.n)
        w = g[pu] * g[ru]
        w[pu == ru] *= 0.5
        kernels.scatter_pairs(w, members, square)
    scores = sps.csr_array(
        (np.concatenate(entry_value), (np.concatenate(entry_cluster), np.concatenate(entry_bot))),
        shape=(int(games.cluster.max()) + 1, stride),
    )
    gram = (scores.T @ scores).toarray()
    cross = gram - square - square.T
    return np.asarray(cross[: design.n_bots, : design.n_bots], dtype=np.float64)
