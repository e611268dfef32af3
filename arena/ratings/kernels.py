"""The compiled passes over the games: the ratings' inner loops, compiled to machine code by numba.

They are plain loops over numpy arrays and numbers (no Python objects inside), compiled on their
first call (``compiled``) and cached on disk. In the order the fit uses them: merging identical games
(``canonical``, ``add_played``), the likelihood's passes over a layout of games (``choices``,
``scores``, ``add_scores``, ``pair_weights``, ``scatter_pairs``), and the cluster correction of the
error bars (``slot_order``, ``cluster_cross``). Each docstring says what a kernel computes; why, and
the formulas, are with its caller. They release the GIL, so two of them run at once on two threads
(``arena.ratings.threads``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

import numpy as np
import numpy.typing as npt

from arena.ratings.results import FloatArray, IntArray

_Function = TypeVar("_Function", bound=Callable[..., Any])


COMPILED: list[Any] = []
"""The numba dispatchers ``compiled`` made so far (their ``stats`` count compilations and loads from
disk)."""


def compiled(function: _Function) -> _Function:
    """``function`` compiled to machine code by numba (no Python objects inside: numpy arrays, numbers)
    and cached on disk (``__pycache__``): the first call of a process imports numba and loads the code
    (a fraction of a second), the very first call on a machine compiles it (a second or two). Importing
    this module does neither (the store imports it)."""
    dispatcher = None

    @wraps(function)
    def call(*args: Any) -> Any:
        nonlocal dispatcher
        if dispatcher is None:
            import numba

            dispatcher = numba.njit(cache=True, nogil=True)(function)
            COMPILED.append(dispatcher)
        return dispatcher(*args)

    return cast(_Function, call)


# ------------------------------------------------------------------------------- merging games
# A seat packs into 64 bits as rank, team label and bot (high to low): one integer sorts and compares.

BOT_BITS = 40
LABEL_BITS = 8
BOT_MASK = (1 << BOT_BITS) - 1
LABEL_MASK = (1 << LABEL_BITS) - 1
MAX_SEATS = 1 << LABEL_BITS

_U64 = np.uint64
_HASH_SEED, _HASH_M1, _HASH_M2 = _U64(0x9E3779B97F4A7C15), _U64(0xBF58476D1CE4E5B9), _U64(0x94D049BB133111EB)


@compiled
def canonical(
    offsets: IntArray, rows: IntArray, bots: IntArray, ranks: IntArray, teams: IntArray, n_seats: int
) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """The games ``rows`` (of ``n_seats`` seats each) as keys (n_seats, G): per seat its rank, team
    label (if ``teams`` is not empty) and bot packed in 64 bits, sorted (a canonical seat order: by
    rank, then team label, then bot), and a 64-bit hash of each game's keys (splitmix64-style mixing,
    wrapping arithmetic)."""
    keys = np.empty((n_seats, len(rows)), dtype=np.uint64)
    hashes = np.empty(len(rows), dtype=np.uint64)
    for g in range(len(rows)):
        first = offsets[rows[g]]
        for i in range(n_seats):  # insertion sort
            seat = first + i
            key = _U64(bots[seat]) | (_U64(ranks[seat]) << _U64(BOT_BITS + LABEL_BITS))
            if len(teams):
                key |= _U64(teams[seat]) << _U64(BOT_BITS)
            j = i
            while j > 0 and keys[j - 1, g] > key:
                keys[j, g] = keys[j - 1, g]
                j -= 1
            keys[j, g] = key
        h = _HASH_SEED
        for i in range(n_seats):
            h ^= keys[i, g]
            h *= _HASH_M1
            h ^= h >> _U64(31)
            h *= _HASH_M2
        hashes[g] = h ^ (h >> _U64(29))
    return keys, hashes


@compiled
def add_played(slots: IntArray, weight: FloatArray, padding: int, played: FloatArray) -> None:
    """``played[b] += weight[g]`` once for every bot b seated in game g (column of ``slots``), however
    many seats it takes, the ``padding`` index excepted."""
    n_slots, count = slots.shape
    for g in range(count):
        for j in range(n_slots):
            bot = slots[j, g]
            seen = bot == padding
            for i in range(j):
                seen = seen or slots[i, g] == bot
            if not seen:
                played[bot] += weight[g]


# ------------------------------------------------------------------------------ the likelihood


@compiled
def choices(
    alpha: FloatArray,
    plain: FloatArray,
    notplain: FloatArray,
    weight: FloatArray,
    z: FloatArray,
    inc1: FloatArray,
    inc2: FloatArray,
    hessian: bool,
    loglik: bool,
) -> float:
    """Per game (column) of the strengths ``alpha`` (n, G): ``Z_p``, the total strength at and after
    place p, into ``z``; ``plain / Z`` into ``inc1`` and, with ``hessian``, its square into ``inc2``.
    Returns the weighted sum over games of the log-probability of their Luce choices (one log per game,
    of the product) if ``loglik``, else 0."""
    n, count = alpha.shape
    total = 0.0
    for g in range(count):
        strength = 0.0
        for p in range(n - 1, -1, -1):
            strength += alpha[p, g]
            z[p, g] = strength
        product = 1.0
        for p in range(n):
            inc = plain[p, g] / z[p, g]
            inc1[p, g] = inc
            if hessian:
                inc2[p, g] = inc * inc
            if loglik and p < n - 1:
                product *= alpha[p, g] * inc + notplain[p, g]
        if loglik:
            total += math.log(product) * weight[g]
    return total


@compiled
def scores(alpha: FloatArray, plain: FloatArray, inc1: FloatArray, c1: FloatArray, ug: FloatArray) -> None:
    """Per game: ``C1_p``, the sum of ``inc1`` over places up to p, into ``c1``, and the Luce choices'
    scores ``plain - alpha C1`` into ``ug``."""
    n, count = alpha.shape
    for g in range(count):
        acc = 0.0
        for p in range(n):
            acc += inc1[p, g]
            c1[p, g] = acc
            ug[p, g] = plain[p, g] - alpha[p, g] * acc


@compiled
def add_scores(ug: FloatArray, weight: FloatArray, members: IntArray, grad: FloatArray) -> None:
    """``grad[b] += ug[p, g] * weight[g]`` for every member b of unit p of every game g."""
    n, k, count = members.shape
    for p in range(n):
        for i in range(k):
            for g in range(count):
                grad[members[p, i, g]] += ug[p, g] * weight[g]


@compiled
def pair_weights(
    alpha: FloatArray, c1: FloatArray, inc2: FloatArray, weight: FloatArray, w: FloatArray
) -> None:
    """The Hessian's weights per unit pair p <= r of every game (rows of ``w`` in ``triu_indices``
    order), times the game's weight: ``alpha_p alpha_r C2_p``, and on the diagonal
    ``0.5 * (alpha_p^2 C2_p - alpha_p C1_p)`` (halved: the sum is symmetrised), where ``C2_p`` is the
    sum of ``inc2`` over places up to p."""
    n, count = alpha.shape
    for g in range(count):
        c2 = 0.0
        row = 0
        for p in range(n):
            c2 += inc2[p, g]
            diagonal = alpha[p, g] * (c2 * weight[g])
            for r in range(p + 1, n):
                w[row + r - p, g] = alpha[r, g] * diagonal
            w[row, g] = (diagonal - c1[p, g] * weight[g]) * alpha[p, g] * 0.5
            row += n - p


@compiled
def scatter_pairs(weights: FloatArray, members: IntArray, out: FloatArray) -> None:
    """``out[a, b] += weights[row, g]`` for every pair of units p <= r (``row`` in ``triu_indices``
    order), every member a of unit p and b of unit r, and every game g, in that order: (P, G) weights
    per unit pair into a bot-by-bot matrix, for ``members`` (n, k, G), C-contiguous."""
    n, k, count = members.shape
    row = 0
    for p in range(n):
        for r in range(p, n):
            for i in range(k):
                for j in range(k):
                    for g in range(count):
                        out[members[p, i, g], members[r, j, g]] += weights[row, g]
            row += 1


# ------------------------------------------------------------------------ the cluster correction


@compiled
def slot_order(keys: npt.NDArray[np.uint64]) -> IntArray:
    """Per column of ``keys`` (n, G): each place's rank among the column's keys (ties go by place)."""
    n, count = keys.shape
    slot_of = np.zeros((n, count), dtype=np.int64)
    for g in range(count):
        for p in range(n):
            for q in range(p + 1, n):
                if keys[q, g] < keys[p, g]:
                    slot_of[p, g] += 1
                else:
                    slot_of[q, g] += 1
    return slot_of


@compiled
def cluster_cross(ug: FloatArray, slot_of: IntArray, rows: IntArray, starts: IntArray) -> FloatArray:
    """Per cluster, ``g_c g_c'`` minus each game's own ``g_i g_i'`` by slot pair (P, clusters:
    ``triu_indices`` order, the diagonal halved), for the games ``rows`` (distinct games: columns of the
    scores ``ug`` and of ``slot_of``) in clusters that begin at ``starts`` (up to the next start)."""
    n = ug.shape[0]
    cross = np.empty((n * (n + 1) // 2, len(starts)))
    by_slot = np.empty(n)
    sums = np.empty(n)
    own = np.empty(n * (n + 1) // 2)
    for c in range(len(starts)):
        end = starts[c + 1] if c + 1 < len(starts) else len(rows)
        sums[:] = 0.0
        own[:] = 0.0
        for i in range(starts[c], end):
            row = rows[i]
            for p in range(n):
                by_slot[slot_of[p, row]] = ug[p, row]
            pair = 0
            for p in range(n):
                sums[p] += by_slot[p]
                for r in range(p, n):
                    own[pair] += by_slot[p] * by_slot[r]
                    pair += 1
        pair = 0
        for p in range(n):
            for r in range(p, n):
                value = sums[p] * sums[r] - own[pair]
                cross[pair, c] = 0.5 * value if p == r else value
                pair += 1
    return cross
