"""The ladder of record: ``fit`` fits every stored result of a game, and ``update`` adds a few results.

The model, and what the fitted numbers mean, are in ``arena.ratings.model``; this module finds the
numbers: Newton's method with the exact Hessian on the log-posterior, over the results' design
(``arena.ratings.design``) evaluated by ``arena.ratings.likelihood``, the error bars from
``arena.ratings.intervals``. numpy and scipy, no database here (``arena.ratings.load`` reads the store
into ``Results``). Any permutation of the same results gives identical numbers.

How the steps go, and why: docs/ratings-model.md.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import numpy as np

from arena.ratings import linalg
from arena.ratings.connect import anchored, components, joined, opponents
from arena.ratings.design import Design, build_design
from arena.ratings.intervals import build_ladder, cluster_term, contrast_variances
from arena.ratings.likelihood import Evaluation, evaluate
from arena.ratings.model import (
    DEFAULT_PROVISIONAL_HALFWIDTH,
    MIN_PRIOR_GAMES,
    RELEASE_Z,
    Ladder,
    Links,
    field_prior_games,
    prior,
)
from arena.ratings.results import BoolArray, FloatArray, IntArray, RatingsError, Results
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
UPDATE_TOL = 1e-5
"""``update`` stops when its largest Newton step is below this (nats; 0.002 Elo)."""
UPDATE_MAX_ITER = 50
"""``update`` gives up (``converged=False``) after this many Newton steps."""
MAX_STEP = 2.0
"""The largest move of a bot in one Newton step (nats), of ``fit`` and of ``update``: where a bot is far
from the optimum (a new bot that won every new game, a warm start tens of nats off) its curvature is
all but gone, and a full step there throws it so far that its strength underflows next to its
opponents' (a division by zero) or overflows their odds."""


def fit(
    results: Results,
    n_bots: int | None = None,
    *,
    prior_games: float | None = None,
    provisional_halfwidth: float = DEFAULT_PROVISIONAL_HALFWIDTH,
    clustered: bool = True,
    tol: float = 1e-5,
    max_iter: int = 100,
    initial: FloatArray | None = None,
    anchors: BoolArray | None = None,
    lineage: IntArray | None = None,
) -> Ladder:
    """The ladder of record for ``results``: the maximum a-posteriori log-strengths with cluster-robust
    95% intervals (``arena.ratings.model`` says what they are).

    ``n_bots`` defaults to ``results.n_bots`` (``results.bot_ids``, if given, must name that many
    bots). ``prior_games``: virtual games per bot (0: maximum likelihood); None (the default): estimated
    from the field (``arena.ratings.model.field_prior_games``): a fit with ``MIN_PRIOR_GAMES``, the
    spread of the main pool's true log-strengths estimated from it, and the fit carried on from there
    with the prior that matches it (``Ladder.prior_games`` says which). ``clustered=False`` ignores the
    cluster labels (model-based error bars only). ``tol``: convergence, on the largest Newton step in
    nats (1e-5 nats is 0.002 Elo). ``initial``: warm start from earlier log-strengths (``Ladder.theta``).
    ``anchors``: per bot, whether it is one of the ladder's anchors (the built-in bots), whose pool is
    then the main pool (``arena.ratings.connect``); None: the largest component is. ``lineage``: per
    bot, its predecessor's index (the bot's previous validated version) or -1: each version is linked
    to its predecessor (docs/ratings-model.md, "Versions of a bot"), tightly unless its games' score
    at the tight fit departs by more than ``RELEASE_Z`` (then the fit is carried on with that link
    loosened).

    Newton's method with the exact Hessian (see ``_newton``): for large data (over 8 x
    ``SUBSAMPLE_GAMES`` games) the start is a fit of about ``SUBSAMPLE_GAMES`` of them (one in n),
    and its information, scaled up, the first Hessian of the full fit (chord steps), which then needs
    a few gradients and one exact Hessian. The error bars come from the exact Hessian within
    ``FINAL_DRIFT`` nats of the optimum."""
    with one_blas_thread():
        return _fit(
            results,
            n_bots,
            prior_games,
            provisional_halfwidth,
            clustered,
            tol,
            max_iter,
            initial,
            anchors,
            lineage,
        )


def _fit(
    results: Results,
    n_bots: int | None,
    prior_games: float | None,
    provisional_halfwidth: float,
    clustered: bool,
    tol: float,
    max_iter: int,
    initial: FloatArray | None,
    anchors: BoolArray | None,
    lineage: IntArray | None,
) -> Ladder:
    started = time.perf_counter()
    n_bots = results.n_bots if n_bots is None else n_bots
    if results.bot_ids is not None and len(results.bot_ids) != n_bots:
        raise RatingsError(f"bot_ids name {len(results.bot_ids)} bots, the ladder has {n_bots}")
    if not clustered:
        results = replace(results, clusters=None)
    design = build_design(results, n_bots)
    theta = np.zeros(n_bots) if initial is None else np.array(initial, dtype=np.float64)
    if theta.shape != (n_bots,):
        raise RatingsError("initial must have one log-strength per bot")
    if lineage is not None and (lineage.shape != (n_bots,) or np.any(lineage >= np.arange(n_bots))):
        raise RatingsError("lineage must name for every bot an earlier bot (its predecessor) or -1")
    links = Links.of(lineage)
    estimated = prior_games is None
    games = MIN_PRIOR_GAMES if prior_games is None else prior_games
    guess = None
    if design.n_games >= 8 * SUBSAMPLE_GAMES and initial is None:
        stride = design.n_games // SUBSAMPLE_GAMES
        thin = design.thinned(stride)
        theta, guess = _newton(thin, theta, games / stride, 1e-2, max_iter, final=False)[:2]
        # the subsample's information, scaled up: a first Hessian for the full fit (chord steps)
        guess = guess * (design.n_games / sum(float(lay.weight.sum()) for lay in thin.layouts))
    met = None
    if anchors is not None:
        if anchors.shape != (n_bots,):
            raise RatingsError("anchors must say for every bot whether it is one")
        met = opponents(results, n_bots)
    if met is not None and anchors is not None and np.any(anchors & (design.games_played > 0)):
        component = anchored(met, anchors, design.games_played, lineage)
    else:
        component = components(results, n_bots, design.games_played, lineage=lineage)
    first = 0
    if estimated:
        # the field's spread from a fit with the weakest prior, then on with the prior that matches
        # it, from there: its last information, the prior's curvature changed, is the first Hessian
        theta, guess, factor, _, first = _newton(
            design, theta, games, tol, max_iter, guess, final=False, links=links
        )
        pool = (component == 0) & (design.games_played > 0)
        variance = contrast_variances(factor, pool / max(int(pool.sum()), 1))
        matched = field_prior_games(theta, variance, pool)
        guess[np.diag_indices_from(guess)] += prior(theta, matched)[2] - prior(theta, games)[2]
        games = matched
    theta, information, factor, last, iterations = _newton(
        design, theta, games, tol, max_iter, guess, links=links
    )
    changed = _departed(theta, information, last, games, links)
    if changed is not None:
        links = Links.of(lineage, changed)
        first += iterations
        theta, information, factor, last, iterations = _newton(
            design, theta, games, tol, max_iter, links=links
        )
    term = cluster_term(design, last.unit_grads or [])
    inverse = correction = None
    if term is not None:
        inverse = linalg.inverse(factor)
        correction = inverse @ term @ inverse
    return build_ladder(
        _gauge(theta, games),
        information,
        factor,
        correction,
        design.games_played,
        component,
        last.loglik,
        first + iterations,
        iterations < max_iter,
        started,
        results.bot_ids,
        games,
        provisional_halfwidth,
        inverse,
        anchors=anchors,
        opponents=met,
        lineage=lineage if links is not None else None,
        changed=changed,
    )


def _departed(
    theta: FloatArray, information: FloatArray, last: Evaluation, prior_games: float, links: Links | None
) -> BoolArray | None:
    """The versions whose games depart from the rest of their tightly linked chain: the score test of
    each linked version's games at the fit, its likelihood's gradient over its standard deviation
    under the hypothesis that the chain is one player, ``sqrt(i c / (i + c))`` for ``i`` the
    information of the version's own games and ``c`` that of the rest of its chain (the chain's
    estimate leans on the version's own games too: with ``sqrt(i)`` alone a version 200 Elo better
    than a predecessor of 200 games was told apart after 200 two-seat games in only 12 of 20 fields);
    above ``RELEASE_Z``. None where none is."""
    if links is None:
        return None
    n = len(theta)
    own = np.diag(information) - prior(theta, prior_games)[2]
    own -= np.bincount(links.child, links.precision, n) + np.bincount(links.parent, links.precision, n)
    own = np.maximum(own, 0.0)
    chain = np.arange(n)
    for child, parent in zip(links.child.tolist(), links.parent.tolist(), strict=True):
        chain[child] = chain[parent]  # predecessors come first: each version to its chain's first
    rest = np.bincount(chain, own, n)[chain] - own
    child = links.child
    spread = own[child] * rest[child] / np.maximum(own[child] + rest[child], 1e-300)
    z = np.where(spread > 1e-12, np.abs(last.grad[child]) / np.sqrt(np.maximum(spread, 1e-12)), 0.0)
    if not np.any(z > RELEASE_Z):
        return None
    changed = np.zeros(n, dtype=bool)
    changed[child[z > RELEASE_Z]] = True
    return changed


def _posterior(
    design: Design,
    theta: FloatArray,
    prior_games: float,
    hessian: bool,
    loglik: bool = True,
    unit_grads: bool = False,
    links: Links | None = None,
) -> tuple[float, FloatArray, FloatArray | None, Evaluation]:
    """Log-posterior (NaN without ``loglik``), its gradient and minus its Hessian (the information),
    and the likelihood's evaluation; ``links``: the versions' links, part of the prior. Without a
    prior, a gauge term ``11'/n`` makes the information invertible without changing the fit (the
    likelihood is flat along the gauge, so no step moves along it)."""
    ev = evaluate(design, theta, hessian, unit_grads=unit_grads, loglik=loglik or unit_grads)
    logp, gp, hp = prior(theta, prior_games)
    if links is not None:
        link_logp, link_grad = links.terms(theta)
        logp, gp = logp + link_logp, gp + link_grad
    info = None
    if ev.hessian is not None:
        info = -ev.hessian
        info[np.diag_indices_from(info)] += hp
        if links is not None:
            links.add_information(info)
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
    links: Links | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray, Evaluation, int]:
    """Newton's method on the log-posterior from ``theta``: an exact Hessian at the start (or the
    ``guess`` of one, which never counts for the error bars), after steps above ``EXACT_ABOVE`` and
    after steps that shrank by less than ``CONTRACTION``; chord steps (the last factor, fresh
    gradients) otherwise. No bot moves more than ``MAX_STEP`` in a step, and steps above
    ``LINE_SEARCH_ABOVE`` are halved until the log-posterior does not drop. At the optimum the Hessian
    is evaluated once more unless no bot moved more than ``FINAL_DRIFT`` since the last one, so that
    the error bars come from the exact Hessian at (or next to) the optimum. Returns theta, that
    information and its factor, the evaluation at theta (with the log-likelihood and the games'
    scores), and the iterations (``max_iter`` when the largest step never fell below ``tol``).
    Without ``final`` (a first estimate: theta, and the last information as a guess) neither that
    Hessian nor the scores are evaluated. ``links``: the versions' links, part of the prior."""
    value, grad, info, ev = _posterior(
        design, theta, prior_games, hessian=guess is None, loglik=False, links=links
    )
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
        if size > MAX_STEP:
            step *= MAX_STEP / size
            size = MAX_STEP
        search = size > LINE_SEARCH_ABOVE
        if search and math.isnan(value):
            value = _posterior(design, theta, prior_games, hessian=False, links=links)[0]
        scale = 1.0
        while True:
            moved = scale * size
            exact = moved >= EXACT_ABOVE or moved > CONTRACTION * last_size
            trial = theta + scale * step
            t_value, t_grad, t_info, t_ev = _posterior(
                design, trial, prior_games, exact, search, final and moved < FINAL_BELOW, links
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
        _, _, exact_info, ev = _posterior(
            design, theta, prior_games, hessian=True, unit_grads=True, links=links
        )
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


REFIT_MOVE = 0.1
"""An updated ladder is ``stale`` once a bot with games at the fit has moved more than this (nats, 17
Elo) since. The quadratic of a bot's old games is then off in its score by up to half their
information times the square of the move (a logistic curvature changes by at most its own size per
nat), so in its position by up to half the move squared: 0.005 nats, 0.9 Elo, at this move. Over 40
chains of 20 updates on a 100-bot ladder, bots that moved 30 to 65 Elo were 1.6 to 3.9 Elo off a
refit, and every other established bot within 0.75."""


def stale(ladder: Ladder) -> bool:
    """Whether an updated ladder is due for a full refit: a bot with games at its fit has moved more
    than ``REFIT_MOVE`` since (a fit is never stale)."""
    fitted = ladder.fitted
    if fitted is None:
        return False
    had = fitted.games > 0
    return bool(np.any(np.abs(ladder.theta[: fitted.n_bots][had] - fitted.theta[had]) > REFIT_MOVE))


def update(
    ladder: Ladder,
    results: Results,
    n_bots: int | None = None,
    anchors: BoolArray | None = None,
    lineage: IntArray | None = None,
) -> Ladder:
    """Add new results to a fitted ladder fast (for a live ladder between refits): the maximum of the
    posterior with the part of the last full fit's games taken as its quadratic approximation at that
    fit (its ``information`` about its ``theta``) and every result added since the fit exact, found
    by Newton's method to ``UPDATE_TOL``; then the model-based covariance recomputed. The cluster
    correction of the fit is carried over unchanged (new clusters count as independent games until the
    next refit). The next full ``fit`` reconciles everything. ``n_bots`` may grow; a bot with no games
    in the fit (a new one) gets the prior exactly, not as a quadratic.

    An updated ladder can be updated again: it keeps the fit (``Ladder.fitted``) and the results added
    since (``Ladder.added``), and the next update solves afresh from the fit with those and the new
    ones, so a chain of updates gives the same ladder as one update with all their results, and a bot
    whose only games are recent ones never has them approximated. Only the bots seated since the fit
    are iterated on (the quadratic is maximised over the others in closed form: they move with the
    bots they are correlated with), so an update costs a few evaluations of the results since the fit,
    a system per step in the bots they seat, and one factorisation of the new information.

    ``anchors`` (per bot of the updated ladder; only the new bots' are read): as for ``fit``, kept by
    the ladder (``Ladder.anchors``); a ladder fitted without them is updated without them.
    ``lineage`` (per bot of the updated ladder; only the new bots' are read): as for ``fit``, a new
    version tightly linked to its predecessor (the next refit tests the link)."""
    with one_blas_thread():
        return _update(ladder, results, n_bots, anchors, lineage)


def _update(
    ladder: Ladder,
    results: Results,
    n_bots: int | None,
    given: BoolArray | None,
    given_lineage: IntArray | None,
) -> Ladder:
    started = time.perf_counter()
    fitted = ladder.fitted or ladder
    old = fitted.n_bots
    n_bots = max(ladder.n_bots, results.n_bots) if n_bots is None else n_bots
    if n_bots < ladder.n_bots:
        raise RatingsError("an update cannot drop bots from the ladder")
    if len(results.bots) and (results.bots.min() < 0 or results.bots.max() >= n_bots):
        raise RatingsError(f"bot indexes must be in 0..{n_bots - 1}")
    added = results if ladder.added is None else ladder.added.concat(results)
    prior_games = fitted.prior_games
    lineage = np.full(n_bots, -1, dtype=np.int64)
    if fitted.lineage is not None:
        lineage[:old] = fitted.lineage
    if given_lineage is not None:
        lineage[old:] = given_lineage[old:n_bots]
    if np.any(lineage[old:] >= np.arange(old, n_bots)):
        raise RatingsError("lineage must name for every bot an earlier bot (its predecessor) or -1")
    new_links = Links.of(np.where(np.arange(n_bots) >= old, lineage, -1))
    # the bots of the results since the fit, and the new versions and their predecessors: 0..k-1 in
    # ``local``
    seated = np.unique(added.bots)
    if new_links is not None:
        seated = np.unique(np.concatenate([seated, new_links.child, new_links.parent]))
    local = replace(added, bots=np.searchsorted(seated, added.bots), clusters=None, bot_ids=None)
    design = build_design(local, len(seated))
    had = np.zeros(n_bots, dtype=bool)
    had[:old] = fitted.games > 0
    known = had[seated]  # bots with games in the fit: its quadratic; the others: the prior, exact
    start = np.zeros(n_bots)
    start[:old] = fitted.theta
    # The fit's part, -d'Id/2 in the moves d from the fit, maximised over the bots not seated since
    # is -d_S' K d_S / 2 over those seated, K the inverse of the S block of I's inverse.
    columns = fitted.inverse[:, seated[known]]
    schur = linalg.inverse(linalg.cholesky(columns[seated[known]]))
    x0 = start[seated]

    links = None
    if new_links is not None:
        links = Links(
            np.searchsorted(seated, new_links.child),
            np.searchsorted(seated, new_links.parent),
            new_links.precision,
        )

    def posterior(x: FloatArray) -> tuple[float, FloatArray, FloatArray, Evaluation]:
        ev = evaluate(design, x, hessian=True, loglik=True)
        assert ev.hessian is not None
        move = x[known] - x0[known]
        pull = schur @ move
        logp, gp, hp = prior(x[~known], prior_games)
        grad = ev.grad
        grad[known] -= pull
        grad[~known] += gp
        info = -ev.hessian
        info[np.ix_(known, known)] += schur
        info[~known, ~known] += hp
        if links is not None:
            link_logp, link_grad = links.terms(x)
            logp += link_logp
            grad += link_grad
            links.add_information(info)
        return ev.loglik + logp - 0.5 * float(move @ pull), grad, info, ev

    x = x0
    value, grad, info, ev = posterior(x)
    iterations, converged = UPDATE_MAX_ITER, False
    for iteration in range(UPDATE_MAX_ITER):
        step = linalg.solve(linalg.cholesky(info), grad)
        size = float(np.max(np.abs(step))) if len(step) else 0.0
        if size < UPDATE_TOL:
            iterations, converged = iteration, True
            break
        if size > MAX_STEP:
            step *= MAX_STEP / size
            size = MAX_STEP
        scale = 1.0
        while True:  # steps above LINE_SEARCH_ABOVE are halved until the posterior does not drop
            trial = x + scale * step
            t_value, t_grad, t_info, t_ev = posterior(trial)
            if scale * size <= LINE_SEARCH_ABOVE or t_value >= value - 1e-10 * abs(value) or scale < 1e-4:
                break
            scale *= 0.5
        x, value, grad, info, ev = trial, t_value, t_grad, t_info, t_ev
    theta = start
    theta[:old] += columns @ (schur @ (x[known] - x0[known]))
    theta[seated] = x
    # the information at theta: the fit's games' as they were, the added games' at theta, and for
    # the bots with no games in the fit the prior's curvature at theta
    information = np.zeros((n_bots, n_bots))
    information[:old, :old] = fitted.information
    fresh = np.flatnonzero(~had)
    information[fresh, fresh] = prior(theta[fresh], prior_games)[2]
    if new_links is not None:
        new_links.add_information(information)
    assert ev.hessian is not None
    information[np.ix_(seated, seated)] -= ev.hessian
    factor = linalg.cholesky(information)
    correction = None
    if fitted.correction is not None:
        correction = np.zeros((n_bots, n_bots))
        correction[:old, :old] = fitted.correction
    games = np.zeros(n_bots, dtype=np.int64)
    games[:old] = fitted.games
    games[seated] += design.games_played
    anchors = met = None
    kept = lineage if np.any(lineage >= 0) else None
    component = joined(fitted.component, games, added, kept)
    if fitted.anchors is not None and fitted.opponents is not None:
        anchors = np.zeros(n_bots, dtype=bool)
        anchors[:old] = fitted.anchors
        if given is not None:
            anchors[old:] = given[old:n_bots]
        met = opponents(added, n_bots)
        met[:old, :old] |= fitted.opponents
        if np.any(anchors & (games > 0)):
            component = anchored(met, anchors, games, kept)
    return build_ladder(
        theta,
        information,
        factor,
        correction,
        games,
        component,
        fitted.loglik + ev.loglik,
        iterations,
        converged,
        started,
        _bot_ids(ladder.bot_ids, results.bot_ids, n_bots),
        prior_games,
        fitted.provisional_halfwidth,
        fitted=fitted,
        added=added,
        anchors=anchors,
        opponents=met,
        lineage=kept,
        changed=_extended(fitted.changed, n_bots),
    )


def _extended(changed: BoolArray | None, n_bots: int) -> BoolArray | None:
    """The fit's loose links, the new bots' tight."""
    if changed is None:
        return None
    out = np.zeros(n_bots, dtype=bool)
    out[: len(changed)] = changed
    return out


def _bot_ids(known: IntArray | None, given: IntArray | None, n_bots: int) -> IntArray | None:
    """The outside ids of an updated ladder's ``n_bots`` bots: the ladder's, extended by the new
    results' (which must agree with the ladder's on the bots both name); None if neither names any."""
    if known is None or given is None:
        ids = known if given is None else given
    else:
        shared = min(len(known), len(given))
        if not np.array_equal(known[:shared], given[:shared]):
            raise RatingsError("the new results number the bots differently from the ladder")
        ids = known if len(known) >= len(given) else given
    if ids is None:
        return None
    if len(ids) < n_bots:
        raise RatingsError(f"bot_ids name {len(ids)} bots, the updated ladder has {n_bots}")
    return ids[:n_bots]
