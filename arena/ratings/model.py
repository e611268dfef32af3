"""The ratings' statistical model: what a rating is and what a fitted ladder's numbers mean.

Every bot has a log-strength ``theta``; a game's finish order is a Plackett-Luce ranking of its units
(a player, or a team with the sum of its members'), a tie being an unobserved order. A BayesElo-style
prior of virtual games, as wide as the field, keeps every rating finite; a new version of a bot is
linked to its predecessor (``Links``). ``elo = 1500 + 400 / ln(10) * (theta - mean)`` over the main
pool, and the error bars are the cluster-corrected inverse information. ``arena.ratings.fit`` finds
the ratings that maximise this model's posterior; ``Ladder`` holds what it finds.

Why, and the figures: docs/ratings-model.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from arena.ratings import linalg
from arena.ratings.results import BoolArray, FloatArray, IntArray, Results

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of natural log-strength: ``P(a beats b) = 1 / (1 + 10 ** (-(Ea - Eb) / 400))``."""
ELO_MEAN = 1500.0
Z95 = 1.959963984540054
DEFAULT_PRIOR_GAMES = 0.5
"""Virtual games per bot where the field's spread is not known (a main pool too small to estimate it
from: ``field_prior_games``), and the prior variance matchmaking gives a bot with no games."""
MIN_PRIOR_GAMES = 0.05
"""The fit's first pass, and the fewest virtual games per bot a fit estimating its prior from the field
gives (``field_prior_games``; a field of SD ~1550 Elo or wider)."""
MAX_PRIOR_GAMES = 2.0
"""The most virtual games per bot a fit estimating its prior from the field gives (a field of SD ~250 Elo
or narrower)."""
MIN_POOL = 3
"""``field_prior_games`` estimates the field's spread from main pools of at least this many bots."""
DEFAULT_PROVISIONAL_HALFWIDTH = 100.0


# ------------------------------------------------------------------------- the prior and ties


def prior(theta: FloatArray, games: float) -> tuple[float, FloatArray, FloatArray]:
    """``games`` virtual games per bot against log-strength 0, half won: log-density, gradient and
    the diagonal of minus its Hessian."""
    if games <= 0:
        zero = np.zeros_like(theta)
        return 0.0, zero, zero
    p = 0.5 * (1.0 + np.tanh(0.5 * theta))  # logistic, without overflow
    logp = games * float(np.sum(0.5 * theta - np.logaddexp(0.0, theta)))
    return logp, games * (0.5 - p), games * p * (1.0 - p)


SAME_SD = 10.0 / ELO_PER_NAT
"""The link of a version to its predecessor while its results do not tell them apart (nats)."""
CHANGED_SD = 400.0 / ELO_PER_NAT
"""The link of a version whose results departed from its chain's (nats)."""
RELEASE_Z = 3.0
"""A version's link is ``CHANGED_SD`` once its games' score test departs by more than this."""


@dataclass(frozen=True, eq=False)
class Links:
    """The versions' links: per linked version (``child``), its predecessor (``parent``) and the
    link's precision (1 / sd^2, nats^-2), a normal prior on ``theta[child] - theta[parent]``."""

    child: IntArray
    parent: IntArray
    precision: FloatArray

    @staticmethod
    def of(lineage: IntArray | None, changed: BoolArray | None = None) -> Links | None:
        """The links of ``lineage`` (per bot, its predecessor's index or -1), ``CHANGED_SD`` where
        ``changed`` and ``SAME_SD`` elsewhere; None where no bot has a predecessor."""
        if lineage is None or not np.any(lineage >= 0):
            return None
        child = np.flatnonzero(lineage >= 0)
        wide = np.zeros(len(child), dtype=bool) if changed is None else changed[child]
        precision = np.where(wide, CHANGED_SD**-2, SAME_SD**-2)
        return Links(child=child, parent=lineage[child].astype(np.int64), precision=precision)

    def terms(self, theta: FloatArray) -> tuple[float, FloatArray]:
        """Log-density and gradient at ``theta``."""
        gap = theta[self.child] - theta[self.parent]
        pull = self.precision * gap
        grad = np.zeros_like(theta)
        np.add.at(grad, self.child, -pull)
        np.add.at(grad, self.parent, pull)
        return -0.5 * float(gap @ pull), grad

    def add_information(self, info: FloatArray, index: IntArray | None = None) -> None:
        """Add minus their Hessian to ``info`` (bots numbered by ``index``, if given: the position of
        each bot in ``info``)."""
        child = self.child if index is None else index[self.child]
        parent = self.parent if index is None else index[self.parent]
        np.add.at(info, (child, child), self.precision)
        np.add.at(info, (parent, parent), self.precision)
        np.add.at(info, (child, parent), -self.precision)
        np.add.at(info, (parent, child), -self.precision)


def field_prior_games(
    theta: FloatArray,
    variance: FloatArray,
    pool: BoolArray,
    low: float = MIN_PRIOR_GAMES,
    high: float = MAX_PRIOR_GAMES,
) -> float:
    """Virtual games per bot for a prior whose spread matches the field's: ``4 / v`` (the prior's
    information, ``games / 4`` nats^-2 a bot, is that of a variance ``4 / games``) for ``v`` the
    variance of the true log-strengths of the ``pool`` bots (the main pool's bots with games), from a
    fit (``theta``, and ``variance``: each one's posterior variance as a difference from the pool's
    mean): the expected spread of the truth about its mean given the fit,
    ``(sum((theta - mean)^2) + sum(variance)) / (m - 1)`` over the pool's ``m`` bots (one step of EM
    for a normal field, from the fit's prior). Clamped to ``[low, high]``; ``DEFAULT_PRIOR_GAMES``
    for a pool of fewer than ``MIN_POOL``. ``fit`` passes the model-based variances (the cluster
    correction is made once, at the end): duplicate deals with rotated seats make the true ones
    narrower (``v`` comes out a little wide, the prior a little weak), replays in the same seats wider;
    either way by a share of the bots' variance, small next to the field's spread once they have a few
    dozen games."""
    m = int(np.count_nonzero(pool))
    if m < MIN_POOL:
        return DEFAULT_PRIOR_GAMES
    deviation = theta[pool] - float(theta[pool].mean())
    spread = (float(deviation @ deviation) + float(variance[pool].sum())) / (m - 1)
    return min(max(4.0 / spread, low), high)


def _subset_masks(t: int) -> list[list[int]]:
    """For each subset mask of ``t`` items: its members."""
    return [[i for i in range(t) if mask >> i & 1] for mask in range(1 << t)]


def tie_terms(alpha: FloatArray, rest: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """log P(the ``t`` tied units take the next places in some order, before ``rest``) and its gradient
    (t + 1, S) and Hessian (t + 1, t + 1, S) in ``v = (alpha_1..alpha_t, rest)`` (strengths, not logs),
    for ``alpha`` (t, S) and ``rest`` (S,).

    The probability is the sum over the group's orders of their Plackett-Luce probabilities, by the
    recursion F(S) = sum_{i in S} alpha_i F(S - i) / (rest + alpha(S)) over subsets S (all terms positive,
    so no cancellation), differentiated twice alongside."""
    t, count = alpha.shape
    dim = t + 1
    chunk = max(1, (1 << 22) // ((1 << t) * dim * dim))
    if count > chunk:
        parts = [tie_terms(alpha[:, i : i + chunk], rest[i : i + chunk]) for i in range(0, count, chunk)]
        return (
            np.concatenate([p[0] for p in parts]),
            np.concatenate([p[1] for p in parts], axis=1),
            np.concatenate([p[2] for p in parts], axis=2),
        )
    masks = 1 << t
    value = np.zeros((masks, count))
    grad = np.zeros((masks, dim, count))
    hess = np.zeros((masks, dim, dim, count))
    value[0] = 1.0
    for mask, items in enumerate(_subset_masks(t)):
        if not items:
            continue
        denom = rest + alpha[items].sum(axis=0)
        numer = np.zeros(count)
        d_numer = np.zeros((dim, count))
        h_numer = np.zeros((dim, dim, count))
        for i in items:
            sub = mask & ~(1 << i)
            numer += alpha[i] * value[sub]
            d_numer += alpha[i] * grad[sub]
            d_numer[i] += value[sub]
            h_numer += alpha[i] * hess[sub]
            h_numer[i] += grad[sub]
            h_numer[:, i] += grad[sub]
        f = numer / denom
        g = d_numer
        g[items] -= f
        g[t] -= f
        g /= denom
        h = h_numer
        h[items] -= g
        h[t] -= g
        h[:, items] -= g[:, None, :]
        h[:, t] -= g
        h /= denom
        value[mask] = f
        grad[mask] = g
        hess[mask] = h
    f = value[-1]
    lg = grad[-1] / f
    lh = hess[-1] / f - lg[:, None, :] * lg[None, :, :]
    return np.log(f), lg, lh


# ---------------------------------------------------------------------------------- the ladder


@dataclass(frozen=True)
class LadderRow:
    rank: int | None
    """1-based place on the ladder, among the main pool's bots; None for a bot apart from it."""
    bot: int
    """Bot index."""
    bot_id: int | None
    """The outside id (``Results.bot_ids``: the store's bot version id), if known."""
    elo: float
    """For a bot apart from the main pool, the level is the prior's (see ``connected``)."""
    halfwidth: float
    """Half-width of the 95% interval, Elo. For a bot apart from the main pool it is that of its
    difference from the main pool's mean, which only the prior relates it to: a number the results do
    not give, never to be shown as a ladder interval."""
    games: int
    provisional: bool
    superiority: float | None
    """Likelihood of superiority over the next main-pool bot down the ladder (None for the main pool's
    last bot, and for every bot apart from the main pool)."""
    connected: bool
    """In the main pool: a chain of games links the bot to every ranked bot."""
    component: int
    """Its component (``arena.ratings.connect``): 0 for the main pool; bots apart from it that share a
    component were compared with each other (their Elo differences are measured, their level is not)."""


@dataclass(frozen=True, eq=False)
class Ladder:
    """A fitted ladder, per bot index. Elo and standard errors are on the Elo scale; ``theta``, the
    information and covariances are in natural log-strength units (nats)."""

    theta: FloatArray
    """Fitted log-strengths (the prior's virtual opponent is at 0)."""
    elo: FloatArray
    """``1500 + 400 / ln 10 * (theta - mean theta of the main pool's bots with games)``."""
    se: FloatArray
    """Standard error of each Elo (as a difference from that mean), cluster-corrected."""
    model_se: FloatArray
    """The same without the cluster correction (independent games)."""
    games: IntArray
    """Games played per bot."""
    component: IntArray
    """Per bot, its component of the game graph (``arena.ratings.connect``): 0 for the main pool."""
    provisional: BoolArray
    """The 95% interval's half-width is above ``provisional_halfwidth``, or the bot is apart from the
    main pool, or the main pool is that one bot."""
    loglik: float
    """Log-likelihood of the results at ``theta`` (prior excluded); after an update, the fit's at its
    own ``theta`` plus the added results' at this one."""
    iterations: int
    converged: bool
    seconds: float
    information: FloatArray = field(repr=False)
    """Minus the Hessian of the log-posterior (prior included), evaluated exactly at a point within
    ``arena.ratings.fit.FINAL_DRIFT`` nats of ``theta`` for every bot; after an update, the fit's
    plus the added results' at ``theta`` (the prior's at ``theta`` for bots new since the fit)."""
    factor: FloatArray = field(repr=False)
    """Its upper Cholesky factor U (information = U'U)."""
    correction: FloatArray | None = field(repr=False)
    """The cluster correction to the covariance, ``inverse @ C @ inverse`` for the cluster cross term
    C, or None when no cluster holds two games."""
    bot_ids: IntArray | None = None
    prior_games: float = DEFAULT_PRIOR_GAMES
    """Virtual games per bot of the fit's prior (estimated from the field by default); an update keeps
    its fit's."""
    provisional_halfwidth: float = DEFAULT_PROVISIONAL_HALFWIDTH
    fitted: Ladder | None = field(default=None, repr=False)
    """For a ladder made by ``arena.ratings.fit.update``: the full fit it updates (None for a fit)."""
    added: Results | None = field(default=None, repr=False)
    """For a ladder made by ``arena.ratings.fit.update``: every result added to ``fitted`` since."""
    anchors: BoolArray | None = field(default=None, repr=False)
    """Per bot, whether it is one of the ladder's anchors (the built-in bots), whose pool is the main
    pool (``arena.ratings.connect``); None: the largest component is."""
    opponents: BoolArray | None = field(default=None, repr=False)
    """With ``anchors``: which bots played which (``arena.ratings.connect.opponents``), for updates."""
    lineage: IntArray | None = field(default=None, repr=False)
    """Per bot, its predecessor's index (the bot's previous validated version) or -1 (see "Versions of
    a bot"); None: no bot has one."""
    changed: BoolArray | None = field(default=None, repr=False)
    """Per bot, whether its link to its predecessor is ``CHANGED_SD`` (its results departed)."""

    @property
    def n_bots(self) -> int:
        return len(self.theta)

    @property
    def halfwidth(self) -> FloatArray:
        return Z95 * self.se

    @property
    def lower(self) -> FloatArray:
        return self.elo - Z95 * self.se

    @property
    def upper(self) -> FloatArray:
        return self.elo + Z95 * self.se

    @cached_property
    def inverse(self) -> FloatArray:
        """The inverse information: the model-based covariance of ``theta`` (built once, on demand)."""
        return linalg.inverse(self.factor)

    @property
    def covariance(self) -> FloatArray:
        """The full covariance of ``theta``, cluster correction included."""
        if self.correction is None:
            return self.inverse
        return self.inverse + self.correction

    def cov(self, a: int, b: int) -> float:
        """One entry of ``covariance``."""
        value = float(self.inverse[a, b])
        if self.correction is not None:
            value += float(self.correction[a, b])
        return value

    def superiority(self, a: int, b: int) -> float:
        """Likelihood of superiority: the posterior probability that bot ``a`` is stronger than ``b``
        (normal approximation with the full covariance). Between bots of different components it is
        the prior's, not the results' (``rows`` never gives it)."""
        var = self.cov(a, a) + self.cov(b, b) - 2.0 * self.cov(a, b)
        diff = float(self.theta[a] - self.theta[b])
        if var <= 0.0:
            return 0.5 if diff == 0 else float(diff > 0)
        return 0.5 * math.erfc(-diff / math.sqrt(2.0 * var))

    @property
    def inherits(self) -> BoolArray:
        """Per bot, whether it has no games yet but a predecessor's rating (``lineage``)."""
        if self.lineage is None:
            return np.zeros(self.n_bots, dtype=bool)
        inherits: BoolArray = (self.games == 0) & (self.lineage >= 0)
        return inherits

    def order(self) -> IntArray:
        """Bots with at least one game or a predecessor's rating (``inherits``): the main pool's best
        first, then the others by component, best first within each (ties by index)."""
        rated = np.flatnonzero((self.games > 0) | self.inherits)
        return rated[np.lexsort((rated, -self.elo[rated], self.component[rated]))].astype(np.int64)

    def rows(self) -> list[LadderRow]:
        """The ladder, as ``arena ladder GAME`` prints it: the main pool's bots best first, ranked 1, 2,
        ... with the likelihood of superiority over the next one; then the bots apart from it,
        unranked, by component, best first within each (``Ladder.order``)."""
        order = self.order().tolist()
        ranked = int(np.count_nonzero(self.component[order] == 0))
        rows = []
        for place, bot in enumerate(order):
            connected = place < ranked
            below = order[place + 1] if place + 1 < ranked else None
            rows.append(
                LadderRow(
                    rank=place + 1 if connected else None,
                    bot=bot,
                    bot_id=None if self.bot_ids is None else int(self.bot_ids[bot]),
                    elo=float(self.elo[bot]),
                    halfwidth=float(Z95 * self.se[bot]),
                    games=int(self.games[bot]),
                    provisional=bool(self.provisional[bot]),
                    superiority=None if below is None else self.superiority(bot, below),
                    connected=connected,
                    component=int(self.component[bot]),
                )
            )
        return rows
