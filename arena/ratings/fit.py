"""The ladder of record: the maximum a-posteriori fit of every stored result of a game (``fit``), and
``update`` to add a few results to a fitted ladder fast.

The model, and what the fitted numbers mean, are in ``arena.ratings.model``; this module finds the
numbers. numpy and scipy, no database here (``arena.ratings.load`` reads the store into ``Results``).

Newton's method on the log-posterior with the exact Hessian, over the results' design
(``arena.ratings.design``: identical games merged into one weighted game, position-major layouts)
evaluated by ``arena.ratings.likelihood``: step halving for large steps, chord steps (the last factor)
for small ones; large data start from a fit of one game in ``n`` (``SUBSAMPLE_GAMES``), whose
information, scaled up, serves as the first Hessian of the chord steps. The error bars
(``arena.ratings.intervals``) come from the exact Hessian evaluated within ``FINAL_DRIFT`` (0.01 nats,
1.7 Elo) of the optimum for every bot.

The fit is order-independent to the last bit: any permutation of the same results, or of the seats
within a game, gives identical numbers (``arena.ratings.design`` says how). BLAS runs on the calling
thread only during a fit, and the games are evaluated in two fixed groups on two threads
(``arena.ratings.threads``).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np

from arena.ratings import linalg
from arena.ratings.design import Design, build_design
from arena.ratings.intervals import build_ladder, cluster_term
from arena.ratings.likelihood import Evaluation, evaluate
from arena.ratings.model import DEFAULT_PRIOR_GAMES, DEFAULT_PROVISIONAL_HALFWIDTH, Ladder, prior
from arena.ratings.results import FloatArray, RatingsError, Results
from arena.ratings.threads import one_blas_thread

SUBSAMPLE_GAMES = 50_000
"""Above 8x this many games, a first estimate comes from about this many of them (one in n)."""
EXACT_ABOVE = 0.5
"""After a Newton step (largest change, nats) above this, the Hessian is evaluated afresh; below it,
chord steps reuse the last one (a gradient costs a third of a Hessian)."""
CONTRACTION = 0.25
"""After a step that shrank by less than this factor (chord steps converging slowly), the Hessian is
evaluated afresh."""
FINAL_BELOW = 0.01
"""Evaluations after steps below this also keep the games' scores (for the cluster term)."""
FINAL_DRIFT = 0.01
"""The error bars' Hessian is evaluated within this many nats (1.7 Elo) of the optimum for every bot:
a logistic curvature changes by at most 1% per 0.01 nats, a standard error by half as much."""
LINE_SEARCH_ABOVE = 0.5
"""Steps above this (largest change, nats) are halved until the log-posterior does not drop."""


def fit(
    results: Results,
    n_bots: int | None = None,
    *,
    prior_games: float = DEFAULT_PRIOR_GAMES,
    provisional_halfwidth: float = DEFAULT_PROVISIONAL_HALFWIDTH,
    clustered: bool = True,
    tol: float = 1e-5,
    max_iter: int = 100,
    initial: FloatArray | None = None,
) -> Ladder:
    """The ladder of record for ``results``: the maximum a-posteriori log-strengths with cluster-robust
    95% intervals (``arena.ratings.model`` says what they are).

    ``n_bots`` defaults to ``results.n_bots``. ``prior_games``: virtual games per bot (0: maximum
    likelihood). ``clustered=False`` ignores the cluster labels (model-based error bars only).
    ``tol``: convergence, on the largest Newton step in nats (1e-5 nats is 0.002 Elo). ``initial``:
    warm start from earlier log-strengths (``Ladder.theta``).

    Newton's method with the exact Hessian (see ``_newton``): for large data (over 8 x
    ``SUBSAMPLE_GAMES`` games) the start is a fit of about ``SUBSAMPLE_GAMES`` of them (one in n),
    and its information, scaled up, the first Hessian of the full fit (chord steps), which then needs
    a few gradients and one exact Hessian. The error bars come from the exact Hessian within
    ``FINAL_DRIFT`` nats of the optimum."""
    with one_blas_thread():
        return _fit(results, n_bots, prior_games, provisional_halfwidth, clustered, tol, max_iter, initial)


def _fit(
    results: Results,
    n_bots: int | None,
    prior_games: float,
    provisional_halfwidth: float,
    clustered: bool,
    tol: float,
    max_iter: int,
    initial: FloatArray | None,
) -> Ladder:
    started = time.perf_counter()
    n_bots = results.n_bots if n_bots is None else n_bots
    if not clustered:
        results = replace(results, clusters=None)
    design = build_design(results, n_bots)
    theta = np.zeros(n_bots) if initial is None else np.array(initial, dtype=np.float64)
    if theta.shape != (n_bots,):
        raise RatingsError("initial must have one log-strength per bot")
    guess = None
    if design.n_games >= 8 * SUBSAMPLE_GAMES and initial is None:
        stride = design.n_games // SUBSAMPLE_GAMES
        thin = design.thinned(stride)
        theta, guess = _newton(thin, theta, prior_games / stride, 1e-2, max_iter, final=False)[:2]
        # the subsample's information, scaled up: a first Hessian for the full fit (chord steps)
        guess = guess * (design.n_games / sum(float(lay.weight.sum()) for lay in thin.layouts))
    theta, information, factor, last, iterations = _newton(design, theta, prior_games, tol, max_iter, guess)
    term = cluster_term(design, last.unit_grads or [])
    inverse = correction = None
    if term is not None:
        inverse = linalg.inverse(factor)
        correction = inverse @ term @ inverse
    return build_ladder(
        _gauge(theta, prior_games),
        information,
        factor,
        correction,
        design.games_played,
        last.loglik,
        iterations,
        iterations < max_iter,
        started,
        results.bot_ids,
        prior_games,
        provisional_halfwidth,
        inverse,
    )


def _posterior(
    design: Design,
    theta: FloatArray,
    prior_games: float,
    hessian: bool,
    loglik: bool = True,
    unit_grads: bool = False,
) -> tuple[float, FloatArray, FloatArray | None, Evaluation]:
    """Log-posterior (NaN without ``loglik``), its gradient and minus its Hessian (the information),
    and the likelihood's evaluation. Without a prior, a gauge term ``11'/n`` makes the information
    invertible without changing the fit (the likelihood is flat along the gauge, so no step moves
    along it)."""
    ev = evaluate(design, theta, hessian, unit_grads=unit_grads, loglik=loglik or unit_grads)
    logp, gp, hp = prior(theta, prior_games)
    info = None
    if ev.hessian is not None:
        info = -ev.hessian
        info[np.diag_indices_from(info)] += hp
        if prior_games <= 0:
            info += 1.0 / max(len(theta), 1)
    return ev.loglik + logp, ev.grad + gp, info, ev


def _newton(
    design: Design,
    theta: FloatArray,
    prior_games: float,
    tol: float,
    max_iter: int,
    guess: FloatArray | None = None,
    final: bool = True,
) -> tuple[FloatArray, FloatArray, FloatArray, Evaluation, int]:
    """Newton's method on the log-posterior from ``theta``: an exact Hessian at the start (or the
    ``guess`` of one, which never counts for the error bars), after steps above ``EXACT_ABOVE`` and
    after steps that shrank by less than ``CONTRACTION``; chord steps (the last factor, fresh
    gradients) otherwise. Steps above ``LINE_SEARCH_ABOVE`` are halved until the log-posterior does
    not drop. At the optimum the Hessian is evaluated once more unless no bot moved more than
    ``FINAL_DRIFT`` since the last one, so that the error bars come from the exact Hessian at (or next
    to) the optimum. Returns theta, that information and its factor, the evaluation at theta (with the
    log-likelihood and the games' scores), and the iterations (``max_iter`` when the largest step
    never fell below ``tol``). Without ``final`` (a first estimate: theta, and the last information
    as a guess) neither that Hessian nor the scores are evaluated."""
    value, grad, info, ev = _posterior(design, theta, prior_games, hessian=guess is None, loglik=False)
    info = guess if info is None else info
    assert info is not None
    factor = linalg.cholesky(info)
    last_size = math.inf
    # how far each bot moved since the last exact Hessian (a guess is not one)
    drift = np.full_like(theta, math.inf if guess is not None else 0.0)
    iterations = max_iter
    for iteration in range(1, max_iter + 1):
        step = linalg.solve(factor, grad)
        size = float(np.max(np.abs(step))) if len(step) else 0.0
        if size < tol:
            iterations = iteration - 1
            break
        search = size > LINE_SEARCH_ABOVE
        if search and math.isnan(value):
            value = _posterior(design, theta, prior_games, hessian=False)[0]
        scale = 1.0
        while True:
            moved = scale * size
            exact = moved >= EXACT_ABOVE or moved > CONTRACTION * last_size
            trial = theta + scale * step
            t_value, t_grad, t_info, t_ev = _posterior(
                design, trial, prior_games, exact, search, unit_grads=final and moved < FINAL_BELOW
            )
            if not search or t_value >= value - 1e-10 * abs(value) or scale < 1e-4:
                break
            scale *= 0.5
        drift += np.abs(scale * step)
        theta, value, grad, ev, last_size = trial, t_value, t_grad, t_ev, moved
        if t_info is not None:
            info, factor = t_info, linalg.cholesky(t_info)
            drift[:] = 0.0
    if not final:
        return theta, info, factor, ev, iterations
    if len(theta) and float(np.max(drift)) > FINAL_DRIFT:
        _, _, exact_info, ev = _posterior(design, theta, prior_games, hessian=True, unit_grads=True)
        assert exact_info is not None
        info, factor = exact_info, linalg.cholesky(exact_info)
    if ev.unit_grads is None or math.isnan(ev.loglik):
        ev = evaluate(design, theta, hessian=False, unit_grads=True, loglik=True)
    return theta, info, factor, ev, iterations


def _gauge(theta: FloatArray, prior_games: float) -> FloatArray:
    """Without a prior only differences are identified: centre the log-strengths."""
    if prior_games <= 0 and len(theta):
        return theta - float(theta.mean())
    return theta


def update(ladder: Ladder, results: Results, n_bots: int | None = None) -> Ladder:
    """Add new results to a fitted ladder fast (for a live ladder between refits): one Newton step
    from the fit, with the information of the old games taken as fixed at the fit and the new games'
    added exactly, and the model-based covariance recomputed. The cluster correction of the last refit
    is carried over unchanged (new clusters count as independent games until the next refit). The
    next full ``fit`` reconciles everything. ``n_bots`` may grow (new bots start from the prior)."""
    with one_blas_thread():
        return _update(ladder, results, n_bots)


def _update(ladder: Ladder, results: Results, n_bots: int | None) -> Ladder:
    started = time.perf_counter()
    old = ladder.n_bots
    n_bots = max(old, results.n_bots) if n_bots is None else n_bots
    theta = np.zeros(n_bots)
    theta[:old] = ladder.theta
    _, prior_grad, prior_curv = prior(np.zeros(n_bots - old), ladder.prior_games)
    information = np.zeros((n_bots, n_bots))
    information[:old, :old] = ladder.information
    information[np.arange(old, n_bots), np.arange(old, n_bots)] = prior_curv
    design = build_design(results, n_bots)
    ev = evaluate(design, theta, hessian=True, loglik=True)
    assert ev.hessian is not None
    information -= ev.hessian
    grad = ev.grad
    grad[old:] += prior_grad
    factor = linalg.cholesky(information)
    theta = theta + linalg.solve(factor, grad)
    correction = None
    if ladder.correction is not None:
        correction = np.zeros((n_bots, n_bots))
        correction[:old, :old] = ladder.correction
    games = np.zeros(n_bots, dtype=np.int64)
    games[:old] = ladder.games
    games += design.games_played
    bot_ids = ladder.bot_ids if results.bot_ids is None or len(results.bot_ids) < n_bots else results.bot_ids
    return build_ladder(
        theta,
        information,
        factor,
        correction,
        games,
        ladder.loglik + ev.loglik,
        1,
        True,
        started,
        bot_ids,
        ladder.prior_games,
        ladder.provisional_halfwidth,
    )
