"""Elo ladders with honest error bars.

The ladder of record is a batch Plackett-Luce / Bradley-Terry fit (ties, teams, a prior as wide as the field,
cluster-robust 95% intervals, likelihood of superiority, provisional flags), pure numpy/scipy:

* ``arena.ratings.results``: what the fit reads (``Results``: the finish orders of many games).
* ``arena.ratings.model``: the statistical model, and the fitted ``Ladder``: what a rating, its
  interval and a likelihood of superiority mean.
* ``arena.ratings.fit``: ``fit`` (Newton's method), and ``update`` to add a few results to a fitted
  ladder fast.
* ``arena.ratings.design``: the results arranged for the likelihood (identical games merged, layouts).
* ``arena.ratings.likelihood``: the log-likelihood, its gradient and Hessian.
* ``arena.ratings.intervals``: error bars from the information, with the cluster-robust correction.
* ``arena.ratings.kernels``: the compiled (numba) passes over the games.
* ``arena.ratings.linalg``: the information matrix's LAPACK calls.
* ``arena.ratings.threads``: the second thread, and BLAS on one.

Around it:

* ``arena.ratings.live``: incremental Elo for instant feedback between refits (provisional).
* ``arena.ratings.load``: reads a game's rated results from the store (SQLAlchemy) in one query.
* ``arena.ratings.ladder``: ratings in the store (live Elo as each match lands, the refit, the stored
  ladder).
* ``arena.ratings.rated``: what is rated, the one definition of the play that moves a ladder.
* ``arena.ratings.versions``: a bot's versions, each linked to its predecessor, and the built-in bots
  that anchor the main pool.
* ``arena.ratings.consistency``: flags a bot whose results depart from its rating (against one
  opponent, or over time); ``arena.ratings.store_flags`` writes them.
* ``arena.ratings.simulate``: simulated results from known strengths (tests, benchmark).

What ``arena ladder GAME`` does::

    from arena.ratings.load import load_results
    from arena.ratings.fit import fit

    ladder = fit(load_results(store.engine, game))
    for row in ladder.rows():  # rank, bot_id (bot version id), elo, halfwidth, games, provisional
        ...
"""
