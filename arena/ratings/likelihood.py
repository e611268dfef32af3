"""The log-likelihood of a design's games under the model, with its gradient and Hessian (``evaluate``).

``evaluate`` gives them in the bots' log-strengths (the model is ``arena.ratings.model``'s), and each
game's scores for the cluster correction. A finish order is a chain of Luce choices (a lone unit
taking its place from the units at and after it) and tie groups in the middle (``tie_terms``); a tie
for the last places adds nothing. Per layout, the choices of all its games are a few compiled passes
(``arena.ratings.kernels``) and its tie groups vectorised numpy per group size; the scores and Hessian
weights of the units are then spread over their members (a team's log-strength is the sum of its
members'). Strengths are taken relative to the strongest bot, or to each game's strongest unit where
that could overflow. The two groups of layouts are evaluated at once on two threads, and their sums
added in a fixed order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from arena.ratings import kernels
from arena.ratings.design import Design, Layout, Ties
from arena.ratings.model import tie_terms
from arena.ratings.results import FloatArray, IntArray


@dataclass
class Evaluation:
    """What ``evaluate`` found."""

    loglik: float
    """NaN unless asked for."""
    grad: FloatArray
    hessian: FloatArray | None
    """Hessian of the log-likelihood (negative semi-definite), ``n_bots`` square."""
    unit_grads: list[FloatArray] | None
    """Per layout, (n, G): each distinct game's score per unit (for one game, not weighted)."""


def evaluate(
    design: Design,
    theta: FloatArray,
    hessian: bool,
    unit_grads: bool = False,
    loglik: bool = False,
) -> Evaluation:
    """The log-likelihood of all games (if ``loglik``), its gradient, and optionally its Hessian.

    For the Luce choices (a lone unit taking a place) with ``Z_p`` the total strength of the units at
    and after place p, ``C1_p = sum_{q <= p} 1 / Z_q`` and ``C2_p = sum_{q <= p} 1 / Z_q^2`` over choices
    q: the score of the unit at place p is ``[p is a choice] - alpha_p C1_p``, and the Hessian entry of
    units p <= r is ``alpha_p alpha_r C2_p - [p = r] alpha_p C1_p``. A tie group in the middle adds its
    own terms; through the strength of the units below it, it adds to C1 and C2 there as well. Each
    distinct game counts ``weight`` times."""
    n_bots = design.n_bots
    stride = n_bots + 1
    theta_ext = np.append(theta, 0.0)
    top = float(theta_ext.max())
    spread = top - float(theta_ext.min())
    bot_alpha = np.exp(theta_ext - top)
    for lay in design.layouts:
        if id(lay) not in design.work:
            design.work[id(lay)] = Work(lay)

    def half(indices: tuple[int, ...]) -> _Sums:
        sums = _Sums(0.0, np.zeros(stride), np.zeros((stride, stride)) if hessian else None, {})
        for index in indices:
            lay = design.layouts[index]
            sums.total += _evaluate_layout(
                lay, design.work[id(lay)], theta_ext, bot_alpha, spread, sums, hessian, unit_grads, loglik
            )
        return sums

    sums, other = design.in_halves(half)
    total = sums.total + other.total
    grad = sums.grad + other.grad
    result_hessian = None
    if sums.square is not None and other.square is not None:
        square = sums.square + other.square  # the Hessian's upper half, diagonal halved
        result_hessian = (square + square.T)[:n_bots, :n_bots]
    per_layout = {**sums.unit_grads, **other.unit_grads}
    return Evaluation(
        total if loglik else math.nan,
        grad[:n_bots],
        result_hessian,
        [per_layout[id(lay)] for lay in design.layouts] if unit_grads else None,
    )


@dataclass
class _Sums:
    """One group of layouts' share of an evaluation."""

    total: float
    grad: FloatArray
    square: FloatArray | None
    unit_grads: dict[int, FloatArray]


def _evaluate_layout(
    lay: Layout,
    work: Work,
    theta_ext: FloatArray,
    bot_alpha: FloatArray,
    spread: float,
    sums: _Sums,
    hessian: bool,
    unit_grads: bool,
    loglik: bool,
) -> float:
    """One layout's games: adds their scores to ``sums.grad`` and their Hessian to ``sums.square``,
    keeps their unit scores if ``unit_grads``; returns their log-likelihood (0 without ``loglik``)."""
    n, k = lay.n, lay.k
    alpha, z, inc1, c1, ug = work.alpha, work.z, work.inc1, work.c1, work.ug
    if spread * k < 600.0:  # strengths relative to the strongest bot: no overflow, no underflow
        np.take(bot_alpha, lay.members[:, 0, :], out=alpha)
        for j in range(1, k):
            alpha *= bot_alpha[lay.members[:, j, :]]
    else:  # relative to each game's strongest unit
        s = theta_ext[lay.members].sum(axis=1)
        s -= s.max(axis=0)
        np.exp(s, out=alpha)
    inc2 = work.inc2
    total = kernels.choices(alpha, lay.plain, lay.notplain, lay.weight, z, inc1, inc2, hessian, loglik)
    tie_blocks: list[tuple[Ties, FloatArray, FloatArray, FloatArray]] = []
    for ties in lay.ties:
        t = ties.size
        pos = ties.start + np.arange(t)[:, None]  # (t, S)
        a_t = alpha[pos, ties.rows]
        after = ties.start + t
        logf, lg, lh = tie_terms(a_t, z[after, ties.rows])
        total += float(np.einsum("i,i->", logf, lay.weight[ties.rows])) if loglik else 0.0
        inc1[after, ties.rows] -= lg[t]
        if hessian:
            inc2[after, ties.rows] += lh[t, t]
        tie_blocks.append((ties, a_t, lg, lh))
    kernels.scores(alpha, lay.plain, inc1, c1, ug)
    for ties, a_t, lg, _ in tie_blocks:
        ug[ties.start + np.arange(ties.size)[:, None], ties.rows] += a_t * lg[: ties.size]
    if unit_grads:
        sums.unit_grads[id(lay)] = ug.copy()
    kernels.add_scores(ug, lay.weight, lay.members, sums.grad)
    if sums.square is not None:
        w = work.pairs(lay)
        kernels.pair_weights(alpha, c1, inc2, lay.weight, w)
        for ties, a_t, lg, lh in tie_blocks:
            _add_tie_pairs(w, n, ties, a_t, lg, lh, alpha, lay.weight[ties.rows])
        kernels.scatter_pairs(w, lay.members, sums.square)
    return total


def _add_tie_pairs(
    w: FloatArray,
    n: int,
    ties: Ties,
    a_t: FloatArray,
    lg: FloatArray,
    lh: FloatArray,
    alpha: FloatArray,
    weight: FloatArray,
) -> None:
    """Hessian entries of a middle tie group: within the group, and between it and the units below
    (diagonal entries halved, like the rest of ``w``)."""
    t = ties.size
    table = _pair_rows(n)
    rows = ties.rows
    pos = ties.start + np.arange(t)[:, None]  # (t, S)
    # within the group: alpha_i alpha_j L_ij + [i = j] alpha_i L_i (upper triangle and diagonal)
    iu, ju = np.triu_indices(t)
    within = a_t[iu] * a_t[ju] * lh[iu, ju]
    within[iu == ju] += a_t * lg[:t]
    within[iu == ju] *= 0.5
    w[table[pos[iu], pos[ju]], rows] += within * weight
    # with each unit r below the group: alpha_i alpha_r L_i,rest (one group per game and start, so
    # the entries of one statement are distinct)
    for r in range(2, n):
        below = np.flatnonzero(ties.start + t <= r)
        if not len(below):
            continue
        a_r = alpha[r, rows[below]] * weight[below]
        for i in range(t):
            w[table[pos[i, below], r], rows[below]] += a_t[i, below] * lh[i, t, below] * a_r


_PAIR_ROWS: dict[int, IntArray] = {}


def _pair_rows(n: int) -> IntArray:
    """(n, n): the row of unit pair (p, r) in the ``triu_indices(n)`` order (symmetric)."""
    if n not in _PAIR_ROWS:
        table = np.zeros((n, n), dtype=np.int64)
        pu, ru = np.triu_indices(n)
        table[pu, ru] = np.arange(len(pu))
        table[ru, pu] = np.arange(len(pu))
        _PAIR_ROWS[n] = table
    return _PAIR_ROWS[n]


class Work:
    """Scratch arrays for one layout, reused across evaluations (fresh arrays cost page faults)."""

    def __init__(self, lay: Layout) -> None:
        shape = lay.plain.shape
        self.alpha = np.empty(shape)
        self.z = np.empty(shape)
        self.inc1 = np.empty(shape)
        self.c1 = np.empty(shape)
        self.ug = np.empty(shape)
        self.inc2 = np.empty(shape)
        self.w: FloatArray | None = None

    def pairs(self, lay: Layout) -> FloatArray:
        """(P, G) Hessian weights per unit pair (``triu_indices`` order), before they are spread over
        the units' members."""
        if self.w is None:
            self.w = np.empty((lay.n * (lay.n + 1) // 2, lay.plain.shape[1]))
        return self.w
