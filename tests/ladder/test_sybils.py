"""Kingmaking sybils: an owner's bots that throw their games to its main bot when seated with it lift
it no more than random pairing would, as the matchmaker seats at most one bot of an owner a match."""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from arena.ladder.matchmaking import Entrant, Fairness, Matchmaker, Ratings, ratings_from_ladder
from arena.ratings.fit import fit
from arena.ratings.model import ELO_PER_NAT
from arena.ratings.results import FloatArray, Results

GAMES = 12
"""Games per ladder match (``arena.ladder.standing.LADDER_GAMES``)."""


SYBILS = 9
HONEST = 31
MAIN = HONEST
"""The main bot's key; its sybils are the keys after it, all of one owner."""


def kingmade(theta: FloatArray, match: Sequence[int], rng: np.random.Generator) -> Results:
    """``GAMES`` Plackett-Luce games of the bots of ``match`` (one seat each), where the sybils seated
    with the main bot finish last (the main bot's rivals gain nothing from them)."""
    bots = np.array(match, dtype=np.int64)
    utility = theta[bots][None, :] + rng.gumbel(size=(GAMES, len(bots)))
    if MAIN in match:
        utility[:, bots > MAIN] = -np.inf
    ranks = np.argsort(np.argsort(-utility, axis=1, kind="stable"), axis=1)
    k = len(bots)
    return Results(
        offsets=np.arange(0, GAMES * k + 1, k, dtype=np.int64),
        bots=np.tile(bots, GAMES),
        ranks=ranks.reshape(-1).astype(np.int64),
    )


def sybil_gain(policy: str, seed: int, matches: int, refit_every: int = 20) -> tuple[float, float]:
    """A four-seat living ladder of 41 bots (true Elo SD 250): 31 of one owner each, and one owner's
    main bot (at the honest field's median) with 9 sybils. ``matches`` picks of the policy
    (``information``: ``Matchmaker.pick``; ``random``: ``pick_random``), the ladder refitted every
    ``refit_every`` matches. Returns the main bot's fitted Elo over its true Elo (each relative to the
    honest bots' mean) and the share of its matches that seated a sybil."""
    rng, picker = np.random.default_rng([seed, 7]), random.Random(seed)
    theta = rng.normal(0.0, 250.0 / ELO_PER_NAT, size=HONEST + 1 + SYBILS)
    theta[MAIN] = np.median(theta[:HONEST])
    n = len(theta)
    entrants = [Entrant(key, key if key < MAIN else MAIN) for key in range(n)]
    matchmaker, fairness, ratings = Matchmaker(seats=4, games=GAMES), Fairness(), Ratings()
    played = Results(np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    mains = with_sybils = 0
    for match in range(1, matches + 1):
        if policy == "information":
            pick = matchmaker.pick(entrants, ratings, fairness, picker)
            assert pick is not None
            group, fairness = pick.entrants, pick.fairness
        else:
            group = matchmaker.pick_random(entrants, picker) or ()
        if MAIN in group:
            mains += 1
            with_sybils += max(group) > MAIN
        played = played.concat(kingmade(theta, group, rng))
        if match % refit_every == 0:
            ladder = fit(played, n)
            ratings = ratings_from_ladder(ladder, ladder.component)
    ladder = fit(played, n)
    fitted_elo = ladder.elo[MAIN] - ladder.elo[:HONEST].mean()
    true_elo = ELO_PER_NAT * (theta[MAIN] - theta[:HONEST].mean())
    return float(fitted_elo - true_elo), with_sybils / max(mains, 1)


def test_kingmaking_sybils_gain_no_more_than_under_random_pairing() -> None:
    """Before, the main bot sat with its sybils in 8 or 9 of 10 of its matches and gained +232 and
    +122 Elo on these two seeds (600 matches). At length (``sybil_gain(policy, seed, 1000)``, seeds 0
    to 7): +207 before (+122 to +281, with its sybils in 94% of its matches), +2 now (-29 to +34);
    random pairing +120 (+71 to +156, with its sybils in 55%; the issue's simulation: +94)."""
    runs = [sybil_gain("information", seed, matches=600) for seed in (0, 1)]
    assert all(shared == 0.0 for _, shared in runs), runs
    assert float(np.mean([gain for gain, _ in runs])) <= 94.0, runs
