"""sdk.envs.openspiel: the games as OpenSpiel Python games, on which its algorithms run."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import mcts

import sdk.envs.openspiel  # noqa: F401  (registers the games)
from sdk import features

VECTOR: dict[str, Callable[..., features.Vector]] = {
    "edible": features.edible_features,
    "believe": features.believe_features,
    "kozel": features.kozel_features,
}


@pytest.mark.parametrize(("game", "players"), [("edible", 2), ("edible", 4), ("kozel", 4)])
def test_openspiels_random_simulation_test_passes(game: str, players: int) -> None:
    loaded = pyspiel.load_game(f"card_arena_{game}", {"players": players})
    pyspiel.random_sim_test(loaded, num_sims=2 if game == "kozel" else 5, serialize=False, verbose=False)


@pytest.mark.parametrize(("game", "players"), [("edible", 3), ("believe", 3), ("kozel", 4)])
def test_a_game_shows_each_player_its_seats_vector_and_ends_with_the_scores(game: str, players: int) -> None:
    loaded = pyspiel.load_game(f"card_arena_{game}", {"players": players, "seed": 5})
    state = loaded.new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        player = state.current_player()
        observation = state.state.observation(player)
        vector = VECTOR[game](observation) if game != "believe" else VECTOR[game](observation, state.pending)
        assert state.observation_tensor(player) == list(vector)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert state.returns() == list(state.state.result().scores)
    again = pyspiel.load_game(f"card_arena_{game}", {"players": players, "seed": 5}).new_initial_state()
    assert again.state.reveal() != state.state.reveal(), "the engine's state is played, not a copy"


def test_openspiels_mcts_beats_random_play_at_edible() -> None:
    game = pyspiel.load_game("card_arena_edible", {"players": 2, "seed": 1})
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 20, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    won = 0.0
    for number in range(4):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.current_player() == number % 2:
                state.apply_action(bot.step(state))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        won += state.returns()[number % 2]
    assert won >= 3, f"MCTS won {won} of 4 games against random play"
