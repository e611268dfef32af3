"""The main pool is the built-in bots' (the ladder's anchors), not the largest component, and a bot
joins it once it has played three of its bots (issue 34 item 5)."""

from __future__ import annotations

import numpy as np

from arena.ratings.connect import MIN_OPPONENTS, components
from arena.ratings.fit import fit, update
from arena.ratings.model import ELO_PER_NAT
from arena.ratings.results import Results
from arena.ratings.simulate import simulate_ffa

REAL = 10
"""Bots 0..9: the real field, 0..2 of them built-ins; bots 10..21: a clique that plays only itself."""
CLIQUE = 12


def field(seed: int) -> tuple[np.ndarray, Results, np.ndarray]:
    """True strengths (the clique 350 Elo below the real bots), each group's two-seat games among
    itself (the clique plays more of them), and the anchors."""
    rng = np.random.default_rng(seed)
    theta = np.concatenate([rng.normal(0.0, 0.5, REAL), rng.normal(-350 / ELO_PER_NAT, 0.2, CLIQUE)])
    real = simulate_ffa(theta[:REAL], 120, 10, 2, rng)
    clique = simulate_ffa(theta[REAL:], 200, 10, 2, rng)
    assert clique.clusters is not None
    clique = Results(
        offsets=clique.offsets, bots=clique.bots + REAL, ranks=clique.ranks, clusters=clique.clusters + 10**6
    )
    anchors = np.zeros(REAL + CLIQUE, dtype=bool)
    anchors[:3] = True
    return (
        theta,
        Results(offsets=real.offsets, bots=real.bots, ranks=real.ranks, clusters=real.clusters).concat(
            clique
        ),
        anchors,
    )


def linking_game(winner: int, loser: int) -> Results:
    return Results.from_games([[winner, loser]], [[0, 1]])


def test_a_clique_larger_than_the_field_is_not_the_main_pool() -> None:
    _, results, anchors = field(1)
    n = REAL + CLIQUE
    assert np.all(components(results, n)[REAL:] == 0)  # the old rule: the largest component
    ladder = fit(results, n, anchors=anchors)
    assert np.all(ladder.component[:REAL] == 0) and np.all(ladder.component[REAL:] != 0)
    assert [row.bot for row in ladder.rows() if row.rank is not None] == sorted(
        range(REAL), key=lambda bot: -ladder.elo[bot]
    )


def test_after_one_linking_game_no_clique_bot_is_ranked_among_the_real_ones() -> None:
    """One game between a clique bot and a real one links the graph; the clique bot has played one
    bot of the main pool, not three (the old rule ranked 5 of the top 10 from the clique, 350 Elo
    weaker). Fit and update agree."""
    n = REAL + CLIQUE
    for seed in range(5):
        _, results, anchors = field(seed)
        linked = results.concat(linking_game(REAL, 5))
        old = fit(linked, n)
        assert np.count_nonzero(old.component[REAL:] == 0) == CLIQUE  # the old rule: all ranked
        ladder = fit(linked, n, anchors=anchors)
        assert np.all(ladder.component[:REAL] == 0) and np.all(ladder.component[REAL:] != 0)
        assert len({int(label) for label in ladder.component[REAL:]}) == 1  # the clique, apart, together
        stepped = update(fit(results, n, anchors=anchors), linking_game(REAL, 5), n)
        np.testing.assert_array_equal(stepped.component, ladder.component)


def test_a_bot_joins_the_main_pool_after_three_of_its_bots() -> None:
    """Games against two pool bots leave a clique bot apart; a third pool opponent ranks it (by fit
    and by update). A partner in a team game is not an opponent: a kozel game whose new pool bot is
    the clique bot's partner counts nothing."""
    n = REAL + CLIQUE
    _, results, anchors = field(2)
    two = results.concat(linking_game(REAL, 4)).concat(linking_game(5, REAL))
    assert fit(two, n, anchors=anchors).component[REAL] != 0
    three = two.concat(linking_game(REAL, 6))
    assert MIN_OPPONENTS == 3
    assert fit(three, n, anchors=anchors).component[REAL] == 0
    assert update(fit(two, n, anchors=anchors), linking_game(REAL, 6), n).component[REAL] == 0
    two = Results(
        offsets=two.offsets, bots=two.bots, ranks=two.ranks, teams=np.tile([0, 1], two.n_games)
    )  # two seats as two teams, to sit beside the kozel games
    kozel = Results.from_games([[REAL, 4, 6, 5]], [[0, 2, 0, 2]], teams=[[0, 1, 0, 1]])
    assert fit(two.concat(kozel), n, anchors=anchors).component[REAL] != 0  # 6 a partner; 4 and 5 met already
    kozel_new = Results.from_games([[REAL, 7, 6, 8]], [[0, 2, 0, 2]], teams=[[0, 1, 0, 1]])
    assert fit(two.concat(kozel_new), n, anchors=anchors).component[REAL] == 0  # 7 and 8 against it


def test_without_anchors_that_played_the_largest_component_is_the_main_pool() -> None:
    _, results, _ = field(3)
    n = REAL + CLIQUE
    none = np.zeros(n, dtype=bool)
    np.testing.assert_array_equal(fit(results, n, anchors=none).component, components(results, n))
