"""The sequential probability ratio test of an A/B test of two bot versions: is NEW better than OLD?

NEW's score in a game is 1 ahead of OLD, 1/2 level and 0 behind; a duplicate deal's games are one
cluster, scored by their mean, so the deal's luck cancels. The test is the generalised SPRT with
fishtest's normal approximation, between H0 (NEW ``elo0`` Elo better) and H1 (``elo1``), its
variance shrunk by ``PRIOR_CLUSTERS`` clusters' weight. ``simulate`` plays tests between simulated
bots of known strength, paired by deal or unpaired.

The statistics in full: docs/ab-tests.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.optimize import brentq  # type: ignore[import-untyped]

from arena.ratings.results import FloatArray, IntArray

PRIOR_CLUSTERS = 2.0
"""Weight, in clusters, of the variance prior (``PRIOR_VARIANCE``) in the variance estimate."""
PRIOR_VARIANCE = 0.25
"""The largest variance a score in [0, 1] can have."""
Z95 = 1.959963984540054

BETTER = "better"
WORSE = "worse"
NO_DIFFERENCE = "no difference"
CAP = "cap reached"


class SprtError(ValueError):
    """Test parameters that make no sense (an Elo range backwards, an error rate out of range)."""


def expected_score(elo: npt.ArrayLike) -> FloatArray:
    """NEW's expected score when it is ``elo`` (logistic) Elo better."""
    return np.asarray(1.0 / (1.0 + 10.0 ** (-np.asarray(elo, dtype=np.float64) / 400.0)))


def elo_of(score: npt.ArrayLike) -> FloatArray:
    """The logistic Elo difference of an expected score (clipped off 0 and 1: +-1200 at most)."""
    s = np.clip(np.asarray(score, dtype=np.float64), 1e-3, 1 - 1e-3)
    return np.asarray(400.0 * np.log10(s / (1.0 - s)))


@dataclass(frozen=True)
class Hypotheses:
    """H0: NEW is ``elo0`` better; H1: ``elo1`` better; ``alpha``: the chance of accepting H1 when H0
    holds, ``beta``: of accepting H0 when H1 holds."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            if not math.isfinite(getattr(self, name)):
                raise SprtError(f"{name} must be a finite number")
        if not -1000 <= self.elo0 < self.elo1 <= 1000:
            raise SprtError(f"elo0 ({self.elo0:g}) must be below elo1 ({self.elo1:g}), both within +-1000")
        for name in ("alpha", "beta"):
            if not 0.0001 <= getattr(self, name) <= 0.5:
                raise SprtError(f"{name} must be from 0.0001 to 0.5, not {getattr(self, name):g}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): the LLR at which H0, or H1, is accepted."""
        return math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha)

    def llr(self, n: npt.ArrayLike, mean: npt.ArrayLike, variance: npt.ArrayLike) -> FloatArray:
        """The log-likelihood ratio of H1 against H0 after ``n`` clusters of this mean and (shrunk)
        variance; elementwise."""
        s0, s1 = float(expected_score(self.elo0)), float(expected_score(self.elo1))
        n_ = np.asarray(n, dtype=np.float64)
        return np.asarray(n_ * (s1 - s0) * (2 * np.asarray(mean) - s0 - s1) / (2 * np.asarray(variance)))


def shrunk_variance(n: npt.ArrayLike, squares: npt.ArrayLike) -> FloatArray:
    """The variance estimate of ``n`` clusters whose squared deviations from their mean add up to
    ``squares``, shrunk towards ``PRIOR_VARIANCE``."""
    return np.asarray(
        (np.asarray(squares) + PRIOR_CLUSTERS * PRIOR_VARIANCE) / (np.asarray(n) + PRIOR_CLUSTERS)
    )


@dataclass(frozen=True)
class State:
    """Where a test stands after ``clusters`` deals (``games`` games)."""

    clusters: int
    games: int
    llr: float
    lower: float
    upper: float
    elo: float
    """NEW's Elo difference over OLD (nan before any deal)."""
    elo_low: float
    elo_high: float
    """The 95% interval of ``elo``."""

    @property
    def verdict(self) -> str:
        """better (H1 accepted), worse or no difference (H0 accepted: worse when the interval lies
        below 0), or "" while the LLR is between its bounds."""
        if self.llr >= self.upper:
            return BETTER
        if self.llr <= self.lower:
            return WORSE if self.elo_high < 0 else NO_DIFFERENCE
        return ""

    def text(self) -> str:
        elo = (
            "Elo -"
            if self.clusters == 0
            else f"Elo {self.elo:+.1f} [{self.elo_low:+.1f}, {self.elo_high:+.1f}]"
        )
        return (
            f"games {self.games} ({self.clusters} deals)  LLR {self.llr:+.2f} "
            f"[{self.lower:+.2f}, {self.upper:+.2f}]  {elo}"
        )


def state(hypotheses: Hypotheses, cluster_scores: npt.ArrayLike, games: int) -> State:
    """The test after these clusters' scores (each in [0, 1]) from ``games`` games."""
    x = np.asarray(cluster_scores, dtype=np.float64)
    n = len(x)
    lower, upper = hypotheses.bounds
    if n == 0:
        nan = float("nan")
        return State(0, games, 0.0, lower, upper, nan, nan, nan)
    mean = float(x.mean())
    variance = float(shrunk_variance(n, float(((x - mean) ** 2).sum())))
    half = Z95 * math.sqrt(variance / n)
    low, high = elo_of([mean - half, mean + half])
    return State(
        clusters=n,
        games=games,
        llr=float(hypotheses.llr(n, mean, variance)),
        lower=lower,
        upper=upper,
        elo=float(elo_of(mean)),
        elo_low=float(low),
        elo_high=float(high),
    )


def llr_path(hypotheses: Hypotheses, cluster_scores: npt.ArrayLike) -> FloatArray:
    """The LLR after each of the first 1, 2, ... clusters."""
    x = np.asarray(cluster_scores, dtype=np.float64)
    n = np.arange(1, len(x) + 1, dtype=np.float64)
    total, squares = np.cumsum(x), np.cumsum(x * x)
    mean = total / n
    return hypotheses.llr(n, mean, shrunk_variance(n, np.maximum(squares - total * mean, 0.0)))


def cluster_means(scores: npt.ArrayLike, clusters: npt.ArrayLike) -> FloatArray:
    """Each cluster's mean score, clusters in order of first appearance."""
    labels, first, inverse = np.unique(np.asarray(clusters), return_index=True, return_inverse=True)
    sums = np.bincount(inverse, weights=np.asarray(scores, dtype=np.float64), minlength=len(labels))
    counts = np.bincount(inverse, minlength=len(labels))
    return np.asarray((sums / counts)[np.argsort(first)])


# --- simulation -------------------------------------------------------------------------------


def _pair_means(logit: float, luck: float, nodes: FloatArray, weights: FloatArray) -> float:
    """Expected score of a bot ``logit`` log-odds better, over a normal deal luck of sd ``luck``."""
    return float(np.sum(weights / (1.0 + np.exp(-(logit + luck * nodes)))))


def strength_for(elo: float, luck: float) -> float:
    """The log-odds edge that gives an expected score of ``expected_score(elo)`` when every deal's
    luck adds a normal ``N(0, luck)`` to one seat's log-odds."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(64)
    weights = weights / weights.sum()
    target = float(expected_score(elo))
    return float(brentq(lambda t: _pair_means(t, luck, nodes, weights) - target, -20.0, 20.0))


@dataclass(frozen=True)
class Runs:
    """Simulated tests: each run's verdict (1 H1 accepted, -1 H0, 0 cap) and games played."""

    verdicts: IntArray
    games: IntArray

    @property
    def accepted_h1(self) -> float:
        return float(np.mean(self.verdicts == 1))

    @property
    def mean_games(self) -> float:
        return float(np.mean(self.games))


def simulate(
    hypotheses: Hypotheses,
    elo: float,
    *,
    runs: int,
    luck: float,
    paired: bool,
    max_games: int,
    rng: np.random.Generator,
    chunk: int = 1024,
) -> Runs:
    """``runs`` tests of a NEW bot ``elo`` Elo better than OLD in a two-seat game. Each deal's luck
    (log-odds, sd ``luck``) favours one seat; paired, each deal is played in both seats and its two
    games are a cluster; unpaired, each game has its own deal and seat and is its own cluster. The
    test looks after every cluster, up to ``max_games`` games."""
    edge = strength_for(elo, luck)
    per = 2 if paired else 1
    limit = max_games // per
    lower, upper = hypotheses.bounds
    verdicts = np.zeros(runs, dtype=np.int64)
    games = np.full(runs, limit * per, dtype=np.int64)
    live = np.arange(runs)
    total = np.zeros(runs)
    squares = np.zeros(runs)
    done = 0
    while done < limit and len(live):
        width = min(chunk, limit - done)
        deal = rng.normal(0.0, luck, size=(len(live), width))
        if paired:
            first = rng.random((len(live), width)) < 1 / (1 + np.exp(-(edge + deal)))
            second = rng.random((len(live), width)) < 1 / (1 + np.exp(-(edge - deal)))
            x = (first.astype(np.float64) + second) / 2
        else:
            seat = np.where(rng.random((len(live), width)) < 0.5, 1.0, -1.0)
            x = (rng.random((len(live), width)) < 1 / (1 + np.exp(-(edge + seat * deal)))).astype(np.float64)
        s = total[live, None] + np.cumsum(x, axis=1)
        q = squares[live, None] + np.cumsum(x * x, axis=1)
        n = done + np.arange(1, width + 1, dtype=np.float64)
        mean = s / n
        llr = hypotheses.llr(n, mean, shrunk_variance(n, np.maximum(q - s * mean, 0.0)))
        crossed = (llr >= upper) | (llr <= lower)
        hit = crossed.any(axis=1)
        at = np.argmax(crossed, axis=1)
        ended = live[hit]
        verdicts[ended] = np.where(llr[hit, at[hit]] >= upper, 1, -1)
        games[ended] = (done + at[hit] + 1) * per
        total[live], squares[live] = s[:, -1], q[:, -1]
        live = live[~hit]
        done += width
    return Runs(verdicts, games)
