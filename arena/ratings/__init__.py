"""Elo ladders with honest error bars.

The ladder of record is a batch Plackett-Luce / Bradley-Terry fit (``arena.ratings.fit``) of the
results that ``arena.ratings.load`` reads from the store; ``arena.ratings.ladder`` keeps ratings in
the store and ``arena.ratings.live`` moves them between refits. What ``arena ladder GAME`` does::

    ladder = fit(load_results(store.engine, game))
    for row in ladder.rows():  # rank, bot_id (bot version id), elo, halfwidth, games, provisional
        ...

Every module of the package, the model and the figures: docs/ratings-model.md.
"""
