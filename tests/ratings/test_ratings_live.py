"""Live Elo: winners up, losers down, the total conserved, ties and teams as in the batch fit."""

from __future__ import annotations

import numpy as np
import pytest

from arena.ratings.fit import fit
from arena.ratings.live import LiveElo
from arena.ratings.results import Results
from arena.ratings.simulate import simulate_ffa


def test_free_for_all_moves_winners_up_and_losers_down_and_conserves_the_total() -> None:
    live = LiveElo(ratings={1: 1600.0, 2: 1500.0, 3: 1450.0, 4: 1500.0})
    before = sum(live.ratings.values())
    changes = live.apply([1, 2, 3, 4], [3, 0, 1, 2])
    assert changes[2] > 0 > changes[1]
    assert changes[3] > 0  # second place against a field mostly above it
    assert sum(changes.values()) == pytest.approx(0.0, abs=1e-12)
    assert sum(live.ratings.values()) == pytest.approx(before, abs=1e-9)
    assert live.rating(2) == pytest.approx(1500.0 + changes[2])


def test_tied_units_are_not_compared() -> None:
    live = LiveElo()
    changes = live.apply([1, 2, 3], [0, 1, 1])  # edible: the winner, then everyone else tied
    assert changes[2] == pytest.approx(changes[3])
    assert changes[2] < 0 < changes[1]
    assert LiveElo().apply([1, 2], [0, 0]) == {1: 0.0, 2: 0.0}


def test_teams_share_their_change_and_a_draw_moves_nobody() -> None:
    live = LiveElo(ratings={1: 1500.0, 2: 1500.0, 3: 1500.0, 4: 1500.0})
    changes = live.apply([1, 2, 3, 4], [0, 2, 0, 2], teams=[0, 1, 0, 1])
    assert changes[1] == changes[3] == pytest.approx(4.0)  # k=16, even odds: +8 for the team
    assert changes[2] == changes[4] == pytest.approx(-4.0)
    assert all(change == 0.0 for change in live.apply([1, 2, 3, 4], [0, 0, 0, 0], [0, 1, 0, 1]).values())
    twin = LiveElo().apply([7, 2, 7, 4], [0, 2, 0, 2], teams=[0, 1, 0, 1])
    assert twin[7] == pytest.approx(8.0)  # one bot in both seats of the winning team gets both shares


def test_a_team_is_rated_by_the_sum_of_its_members() -> None:
    strong = LiveElo(ratings={1: 1700.0, 2: 1300.0, 3: 1500.0, 4: 1500.0})
    changes = strong.apply([1, 3, 2, 4], [0, 2, 0, 2], teams=[0, 1, 0, 1])
    assert changes[1] == pytest.approx(4.0)  # 1700 + 1300 against 1500 + 1500: even odds


def test_bad_games_are_refused() -> None:
    with pytest.raises(ValueError, match="share a rank"):
        LiveElo().apply([1, 2, 3, 4], [0, 2, 2, 0], teams=[0, 1, 0, 1])
    with pytest.raises(ValueError, match="one entry per seat"):
        LiveElo().apply([1, 2], [0])


def test_live_ratings_start_from_the_refit_and_keep_a_history() -> None:
    rng = np.random.default_rng(1)
    theta = np.linspace(-1.0, 1.0, 8)
    results = simulate_ffa(theta, 100, 10, 3, rng)
    results = Results(results.offsets, results.bots, results.ranks, bot_ids=np.arange(10, 18))
    ladder = fit(results)
    live = LiveElo.from_ladder(ladder, record=True)
    assert live.rating(17) == pytest.approx(float(ladder.elo[7]))
    live.apply_results(results.take(np.arange(5)))
    assert live.applied == 5
    assert live.history is not None
    assert all(points[0] == (0, float(ladder.elo[key - 10])) for key, points in live.history.items())
    assert sum(len(points) - 1 for points in live.history.values()) == 15  # 5 games of 3 seats
    seen = np.unique(results.take(np.arange(5)).bots + 10).tolist()
    assert all(live.history[key][-1][1] == live.rating(key) for key in seen)


def test_live_order_matters_where_the_fit_does_not() -> None:
    rng = np.random.default_rng(2)
    theta = rng.normal(size=10)
    results = simulate_ffa(theta, 50, 20, 4, rng)
    forward, backward = LiveElo(), LiveElo()
    forward.apply_results(results)
    backward.apply_results(results.take(np.arange(results.n_games)[::-1]))
    assert max(abs(forward.rating(b) - backward.rating(b)) for b in range(10)) > 1.0
