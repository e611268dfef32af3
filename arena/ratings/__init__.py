"""Elo ladders with honest error bars.

* ``arena.ratings.fit``: the ladder of record, a batch Plackett-Luce / Bradley-Terry fit (ties, teams,
  a weak prior, cluster-robust 95% intervals, likelihood of superiority, provisional flags), and
  ``update`` to add a few results to a fitted ladder fast. Pure numpy/scipy.
* ``arena.ratings.live``: incremental Elo for instant feedback between refits (provisional).
* ``arena.ratings.load``: reads a game's stored results from the store (SQLAlchemy) in one query.
* ``arena.ratings.simulate``: simulated results from known strengths (tests, benchmark).

What ``arena ladder GAME`` does::

    from arena.ratings.load import load_results
    from arena.ratings.fit import fit

    ladder = fit(load_results(store.engine, game))
    for row in ladder.rows():  # rank, bot_id (bot version id), elo, halfwidth, games, provisional
        ...
"""
