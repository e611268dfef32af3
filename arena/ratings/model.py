"""The ratings' statistical model: what a rating is, how finish orders depend on ratings, the prior,
and what a fitted ladder's numbers (an Elo, its interval, a likelihood of superiority) mean.

``arena.ratings.fit`` finds the ratings that maximise this model's posterior; ``Ladder`` holds what
it finds.

Model
-----
Every bot ``b`` has a log-strength ``theta[b]``; a unit (a player in a free-for-all, a team in a team
game) has the log-strength ``s`` of the *sum* of its members' (a team that seats the same bot version
twice counts it twice). A game's finish order is a **Plackett-Luce** ranking of its units: the winner
is drawn with probability ``exp(s_i) / sum(exp(s_j))`` over the units still in, then the next place
from the rest, and so on. Two units reduce this to Bradley-Terry, so 2 vs 2 teams are Bradley-Terry on
team sums.

Ties are **unobserved order**: a group of units sharing a place is the event that they take the next
places *in some order*. Its probability under Plackett-Luce is exact and cheap (a sum over the
group's orders, computed with a recursion over its subsets: ``tie_terms``), so the likelihood of a
finish order with ties is the probability of the set of strict orders it stands for. Consequences:

* a tie for the *last* places carries no information about the tied units (edible's normal end, "the
  winner, then everyone else tied", is the winner chosen from all); a draw between two units (a drawn
  kozel series) carries none either: draws are conditioned out. Under Davidson's draw model this is
  exactly right (the decisive results of a Davidson model are Bradley-Terry), and a draw never moves
  anyone; scoring a draw as half a win under a model without draws is what broke calibration in the
  field notes (z SD 1.6), and is not done;
* a tie in the middle (units leaving together) says "these all beat those below, in some order".

Davidson-Luce (a tie parameter per tie size) was considered and rejected: edible ties up to five units
on most games, so its denominators (every subset of the remaining units, per stage) would cost
O(2^n) per stage, and it would read edible's forced "rest tied" as evidence that the rest are alike.

Prior
-----
BayesElo-style (``prior``): each bot gets ``prior_games`` virtual games against a virtual opponent of
log-strength 0 (the bots' average), half of them won and half lost. It keeps an unbeaten (or winless)
bot finite, adds at most ``prior_games / 4`` games' worth of information, and pins the otherwise free
overall level. At the average its curvature is that of a normal prior of variance ``4 / prior_games``
nats^2; away from it the pull stays bounded (its gradient is below ``prior_games / 2``, however far a
bot is from the average), so it never pulls the ends of a field far. ``prior_games=0`` gives the plain
maximum-likelihood fit (then the data must connect all bots and no bot may be unbeaten or winless).

How many virtual games: the field's (``field_prior_games``; ``fit``'s default, ``prior_games=None``). A
fit first runs with a twentieth of a virtual game (``MIN_PRIOR_GAMES``, the prior of a field of SD ~1550
Elo), estimates from it the variance ``v`` of the main pool's true log-strengths, and carries on from that
optimum with ``4 / v`` virtual games, clamped to [0.05, 2] (``MAX_PRIOR_GAMES``: a field of SD ~250 Elo).
The estimate is one EM step for a normal field from the weak prior: the fitted log-strengths' spread
about their mean *plus* their posterior variances (the expected spread of the truth given the fit), so a
field whose results say little keeps the weak prior (a bot with few games counts with its wide
uncertainty). ``update`` steps keep the fit's prior (``Ladder.prior_games``); the next refit estimates
it afresh. Matchmaking reads it too: a bot with no games has the prior's variance.

The floor was half a game (and the first pass too) until issue 34: at an Elo SD of 800 with 30 games a
bot the estimate sat at that floor, and the end fifths' intervals covered the truth 0.57 to 0.73 (two
seats, winner-only 4-seat free-for-all, 2 vs 2; ``tests/ratings/test_wide_field.py``), the bots that
never lost 0.85 to 0.89 (fitted 250 to 310 Elo low). From a first pass at 0.05 games the estimate
follows the field down (0.05 to 0.09 games there) and the end fifths cover 0.96 to 1.00, every unbeaten
bot's interval its strength. Over 100 bots, 30 to 300 games each, Elo SDs 500 to 1200, 20 fields each,
every fifth covered 0.89 to 1.00 (the few below 0.93 winner-only at SD 1200; with a floor of 0.1 games
down to 0.83, and at SD 800 and 30 games 0.93); the middle fifths are over-covered where the results
are few (a field of 30 games a bot at SD 800 is not measured precisely, and says so).

Measured on simulated fields (100 bots, 30, 100 and 300 games each, 2-player and 4-player free-for-all
and 2 vs 2, 30 fields each): the estimate recovers ``4 / v`` within 10% (300 games a bot; mostly on the
weak side, by the bots' own variance); at true Elo SDs of 122, 250 and 350 every fifth of the field by
true strength covers the truth 0.93 to 1.00 of the time with the estimated prior (0.5 to 2 virtual
games); at 500 and 750 the estimate stays at 0.50 to 0.62 and the fifths cover as with half a game. A
fixed two games would cover the ends of a field of SD 250 only 0.88 to 0.90 with 30 games a bot
(2-player, 2 vs 2; 0.29 to 0.94 at SD 500): the estimate gives 0.6 to 1.1 games there, the ends covering
0.96 to 1.00. The method of moments (the spread *less* the bots' variances, as for unbiased estimates)
was tried first and rejected: the fitted strengths of a sparse field are already pulled in and the
variances of its ends are large, so it took a wide sparse field for a narrow one (2 vs 2, SD 500, 30
games a bot: two virtual games, the ends covering 0.29). In ``bench/ladder.py --seeds 32`` (a living
ladder of SD 250 Elo, two seats) the estimated prior (1.7 games at the end, 1.25 to 2) brings
matchmaking to 0.685 of random pairing's games to a Spearman correlation of 0.95 (half a game: 0.738),
its intervals covering 0.952 (0.937); over 64 seeds 0.697 (half a game 0.734, two games 0.699): per
seed, 4% fewer games (+-1.7%) than with half a game for matchmaking, 1% for random pairing, and
intervals that cover. The estimate costs a refit a second Newton pass from the first one's optimum (its
last information as the first Hessian: a few gradients and the final exact Hessian) and one triangular
inverse of the first pass's factor: in ``bench/ladder.py`` a refit of 100 bots took 2.4 ms (median)
where it took 1.9, in ``bench/ratings.py`` a fit of 1,000,000 results and 1,000 bots 0.75 s (kozel) and
1.09 s (edible) where it took 0.66 and 0.88. The four-seat line of ``bench/ladder.py`` (64 seeds) went
from 0.579 to 0.599 of random pairing's games (goal 0.70), its intervals covering 0.949 (0.944).

Earlier measurements, with a fixed prior: half a virtual game pulls the ends by less than their error
bar at a few hundred games a bot, BayesElo's two virtual games by more. On fields whose true Elo has an
SD of 500 (100 bots, 200 to 500 games each, 2-player and 4-player free-for-all and 2 vs 2), the 95%
intervals of the top and bottom fifths covered the truth 0.58 to 0.94 of the time with two virtual games
(2 vs 2 at 300 games a bot: 0.65 and 0.67), and every fifth 0.93 to 0.98 with half a game; at an SD of
0.7 nats (122 Elo) the fifths cover 0.93 to 0.99 either way (30 to 300 games a bot). Fewer virtual games
let maximum likelihood's own bias away from the average show (a tenth of a game, SD 750 Elo, 2 vs 2: the
ends cover 0.87); a normal prior whose variance is estimated from the field (empirical Bayes) shrinks
the ends by design, its intervals being calibrated on average over the field and not at its ends (2 vs 2
at SD 500 and 300 games a bot: 0.91 and 0.90; at 100 games 0.67 and 0.63): the logistic prior above, its
curvature the field's, keeps its bounded pull. Past an SD of about 750 Elo half a game shrinks the ends
of a 2 vs 2 field again (SD 1000, 300 games a bot: 0.77), and with few games a bot maximum likelihood's
own spread shows (SD 750, 30 to 100 games: 0.57 to 0.88).

Versions of a bot
-----------------
A new version of a bot is not a new player: it is linked to its predecessor (the bot's previous
validated version, ``lineage``) by a normal prior on the difference of their log-strengths
(``Links``), so it starts from its predecessor's posterior, its variance widened. The link is tight
(``SAME_SD``, 10 Elo: the two are one player, their games pooled) until the new version's own results
depart from the rest of its chain by more than ``RELEASE_Z`` standard errors (a score test at the
tight fit, ``arena.ratings.fit``); then the link is ``CHANGED_SD`` (400 Elo) and the version moves
with its own games. A resubmission that changes nothing (or only its luck) stays one player with its
predecessors, so keeping the best-rated of ten versions gains next to nothing: +7.4 Elo over one
version that played the same games (10 versions of 100 two-seat games, 40 fields,
``tests/ratings/test_versions.py``; +3.5 at 10 games a version), where every version starting at the
prior gained +60 (+164). A version better than its predecessor (200 games) is told apart by its games:
300 Elo better, in 20 of 20 fields after 60 games (then 15 Elo low on average); 200 better, in 11 of
20 after 60, 18 after 100, all after 200 (66, 20 and 0 Elo low); 100 better, in 7 of 20 after 200.
A normal link of 100 to 150 Elo alone was weighed and rejected: a noise-only version with 100 games
keeps about 89% of its luck under it (the best of ten some +45 Elo), and a link tight enough for 10 Elo
(about 17 Elo) would hold a genuinely better version back for hundreds of games. The links are part
of the posterior (a version's games inform its predecessors too), and a version is connected where its
predecessor is (``arena.ratings.connect``): a new version with no games yet has its predecessor's Elo
and interval, in the main pool, so matchmaking does not take it for a newcomer.

Elo scale and anchor
--------------------
``elo = 1500 + 400 / ln(10) * (theta - mean(theta over the main pool's bots with games))``: a
difference of 400 Elo is odds of 10 to 1 between two units, and the main pool's mean is 1500. Error
bars are those of that difference from the mean (a contrast), so the prior's weakly known overall
level does not widen them.

Connectivity
------------
Only a chain of games puts two ratings on one scale (``arena.ratings.connect``: the connected
components of the game graph, an all-tie game linking nobody). The *main pool* (component 0, the one
with the most bots) is the ladder: its bots are ranked, their Elo and intervals are relative to its
mean. A bot with no chain of games to it has an Elo and an interval relative to that mean through the
prior alone (the prior pulls every bot toward one average): numbers the results do not give, so the
ladder (``Ladder.rows``) shows such bots apart, unranked, without a likelihood of superiority, and
provisional. Bots of one such component were compared with each other: their differences are measured,
their level is not. A main pool of one bot (a ladder of one bot) is provisional too: its interval, as a
difference from the pool's mean, is 0.

Error bars
----------
The covariance of the log-strengths is the inverse observed Fisher information (minus the Hessian of
the log-posterior at the optimum), corrected for correlated games: games sharing a ``cluster`` label
(the same match and deal: duplicate deals replay the same cards with seats rotated, so their results
are not independent) get a cluster-robust ("sandwich") correction that keeps only the *cross* terms
between different games of a cluster::

    cov = Hinv + Hinv @ C @ Hinv,   C = sum over clusters c of (g_c g_c' - sum_{i in c} g_i g_i')

where ``g_i`` is game ``i``'s score (gradient). Games alone in their cluster keep the model-based
variance (exactly calibrated when the model holds, and stable for bots with few games); duplicate
deals with rotated seats usually make ``C`` negative (the luck of the cards cancels: narrower,
honest intervals) and replays in the same seats positive. Clusters are (match, deal) and not whole
matches: a bot in a handful of matches has too few matches for a robust estimate, and deals of a
match are independent given the bots. Each bot's variance is floored at a quarter of its model-based
variance (the correction is estimated, and an estimate can overshoot). Never are free-for-all games
split into independent pairs (that made the intervals ~24% too narrow in the field notes).

The 95% interval is ``elo +- 1.96 * se``. The likelihood of superiority of a bot over the next one on
the ladder (the next bot of the main pool) is ``Phi((theta_a - theta_b) / sd(theta_a - theta_b))``
with the full covariance. A bot is *provisional* while the half-width of its interval exceeds
``provisional_halfwidth`` Elo (default 100, about 45 two-player games against even opponents), and
while it is apart from the main pool or alone in it.
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
