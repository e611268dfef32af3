"""Simulated results from known strengths, for the tests and the benchmark (vectorised numpy).

Free-for-all games are Plackett-Luce, team games 2 vs 2 Bradley-Terry on team sums with Davidson
draws. With ``duplicate``, the games of a match come in deals of ``deal_size`` games whose noise is
shared with chance ``luck``; each result's cluster label is its (match, deal). ``tail_tie`` and
``pair_tie`` coarsen finish orders into ties.

The model in full: docs/ratings-model.md.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from arena.ratings.results import FloatArray, IntArray, Results


def _distinct_rows(rng: np.random.Generator, rows: int, width: int, n_bots: int) -> IntArray:
    """``rows`` draws of ``width`` distinct bots."""
    if width > n_bots:
        raise ValueError(f"{width} distinct bots needed, only {n_bots}")
    out = rng.integers(0, n_bots, size=(rows, width))
    while True:
        sorted_rows = np.sort(out, axis=1)
        bad = np.flatnonzero((sorted_rows[:, 1:] == sorted_rows[:, :-1]).any(axis=1))
        if not len(bad):
            return out.astype(np.int64)
        out[bad] = rng.integers(0, n_bots, size=(len(bad), width))


def _competition_ranks(places: IntArray, merge_after: np.ndarray) -> IntArray:
    """Competition ranks per unit from ``places`` (0 = first, per unit) where ``merge_after[g, i]``
    joins place ``i + 1`` to place ``i``'s group."""
    games, n = places.shape
    new_group = np.ones((games, n), dtype=bool)
    new_group[:, 1:] = ~merge_after[:, : n - 1]
    first_place = np.maximum.accumulate(np.where(new_group, np.arange(n), 0), axis=1)
    return np.take_along_axis(first_place, places, axis=1).astype(np.int64)


def simulate_ffa(
    theta: FloatArray,
    matches: int,
    games_per_match: int,
    players: int | Sequence[int],
    rng: np.random.Generator,
    *,
    tail_tie: float = 0.0,
    pair_tie: float = 0.0,
    duplicate: bool = False,
    luck: float = 0.0,
    rotate: bool = True,
) -> Results:
    """Free-for-all matches of ``players`` seats (or, per match, one of the given seat counts)."""
    sizes = np.full(matches, players) if isinstance(players, int) else rng.choice(list(players), size=matches)
    parts: list[tuple[IntArray, IntArray, IntArray, IntArray]] = []
    match_offset = 0
    for n in np.unique(sizes).tolist():
        count = int((sizes == n).sum())
        entrants = _distinct_rows(rng, count, n, len(theta))
        game_index = np.arange(games_per_match)
        shift = game_index % n if rotate else np.zeros_like(game_index)
        seat_agent = (np.arange(n)[None, :] - shift[:, None]) % n  # (games, n)
        bots = entrants[:, seat_agent]  # (count, games, n)
        deal = game_index // n if duplicate else game_index
        fresh = rng.gumbel(size=(count, games_per_match, n))
        if duplicate and luck > 0:
            deal_noise = rng.gumbel(size=(count, int(deal.max()) + 1, n))
            shared = rng.random(size=fresh.shape) < luck
            fresh = np.where(shared, deal_noise[:, deal, :], fresh)
        utility = theta[bots] + fresh
        flat = utility.reshape(-1, n)
        order = np.argsort(-flat, axis=1)
        places = np.empty_like(order)
        np.put_along_axis(places, order, np.arange(n)[None, :].repeat(len(order), 0), axis=1)
        merge = np.zeros((len(flat), max(n - 1, 1)), dtype=bool)
        if n > 2 and tail_tie > 0:
            tail = rng.random(len(flat)) < tail_tie
            merge[tail, 1:] = True
        if n > 1 and pair_tie > 0:
            pair = np.flatnonzero(rng.random(len(flat)) < pair_tie)
            merge[pair, rng.integers(0, n - 1, size=len(pair))] = True
        ranks = _competition_ranks(places, merge)
        clusters = (match_offset + np.arange(count))[:, None] * games_per_match + deal[None, :]
        parts.append((bots.reshape(-1, n), ranks, clusters.reshape(-1), np.full(len(flat), n)))
        match_offset += count
    return _assemble(parts, len(theta), teams=False)


def simulate_teams(
    theta: FloatArray,
    matches: int,
    games_per_match: int,
    rng: np.random.Generator,
    *,
    draw_nu: float = 0.0,
    duplicate: bool = False,
    deal_size: int = 4,
    luck: float = 0.0,
    swap: bool = True,
    same_bot: float = 0.0,
) -> Results:
    """2 vs 2 matches: seats 0 and 2 (side 0) against 1 and 3; ``same_bot`` is the share of matches
    whose first team seats one bot version twice. With ``swap`` the teams change sides every game."""
    entrants = _distinct_rows(rng, matches, 4, len(theta))
    twin = rng.random(matches) < same_bot
    entrants[twin, 2] = entrants[twin, 0]
    team_a = theta[entrants[:, 0]] + theta[entrants[:, 2]]
    team_b = theta[entrants[:, 1]] + theta[entrants[:, 3]]
    game_index = np.arange(games_per_match)
    a_on_side0 = (game_index % 2 == 0) if swap else np.ones(games_per_match, dtype=bool)
    deal = game_index // deal_size if duplicate else game_index
    noise = rng.logistic(size=(matches, games_per_match))
    if duplicate and luck > 0:
        deal_noise = rng.logistic(size=(matches, int(deal.max()) + 1))
        shared = rng.random(size=noise.shape) < luck
        noise = np.where(shared, deal_noise[:, deal], noise)
    diff_side0 = np.where(a_on_side0[None, :], 1.0, -1.0) * (team_a - team_b)[:, None]
    side0_wins = diff_side0 + noise > 0
    geo = np.exp(-np.abs(team_a - team_b) / 2)  # sqrt(a b) / max(a, b)
    p_draw = draw_nu * geo / (1 + np.exp(-np.abs(team_a - team_b)) + draw_nu * geo)
    draw = rng.random(size=noise.shape) < p_draw[:, None]
    seat_agent = np.where(a_on_side0[:, None], np.array([0, 1, 2, 3]), np.array([1, 0, 3, 2]))
    bots = entrants[:, seat_agent].reshape(-1, 4)
    ranks = np.where(side0_wins.reshape(-1, 1), np.array([0, 2, 0, 2]), np.array([2, 0, 2, 0]))
    ranks[draw.reshape(-1)] = 0
    clusters = np.arange(matches)[:, None] * games_per_match + deal[None, :]
    part = (bots.astype(np.int64), ranks.astype(np.int64), clusters.reshape(-1), np.full(len(bots), 4))
    return _assemble([part], len(theta), teams=True)


def _assemble(
    parts: list[tuple[IntArray, IntArray, IntArray, IntArray]], n_bots: int, teams: bool
) -> Results:
    bots = np.concatenate([part[0].reshape(-1) for part in parts])
    ranks = np.concatenate([part[1].reshape(-1) for part in parts])
    clusters = np.concatenate([part[2] for part in parts])
    sizes = np.concatenate([part[3] for part in parts])
    offsets = np.concatenate([np.zeros(1, np.int64), np.cumsum(sizes)]).astype(np.int64)
    seat_teams = None
    if teams:
        seat_teams = np.tile(np.array([0, 1, 0, 1], dtype=np.int64), len(sizes))
    return Results(
        offsets=offsets,
        bots=bots.astype(np.int64),
        ranks=ranks.astype(np.int64),
        teams=seat_teams,
        clusters=clusters.astype(np.int64),
        bot_ids=np.arange(n_bots, dtype=np.int64),
    )
