"""The games as OpenSpiel Python games: ``pyspiel.load_game("card_arena_edible", {"players": 2})``.

Importing this module registers ``card_arena_edible``, ``card_arena_believe`` and
``card_arena_kozel`` (parameters ``players`` and ``seed``), so OpenSpiel's algorithms that sample
(MCTS with random rollouts, say) run on the arena's engines. A player is a seat; its observation
tensor is ``sdk.features``' vector of its own observation, its legal actions the indices of its
mask (believe's placements take several, as in ``sdk.envs``), and the returns at the end are the
game's scores. Chance is the engine's own, drawn inside a move (``SAMPLED_STOCHASTIC``): game n of
a loaded game is dealt from a seed derived from ``seed`` and n, as a match deals its games. No
information-state strings are given (an observation is not a whole history), so tabular
algorithms such as CFR, which need them, do not apply. Needs the ``openspiel`` extra.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pyspiel

from arena.games.base import GameState
from arena.games.registry import get_game
from arena.runner.deals import derive_seed
from sdk import features
from sdk.envs.encoding import Encoding, Pending, encoding_for, shown

_DEFAULT_PLAYERS = {"edible": 2, "believe": 3, "kozel": 4}
_MOST_STEPS = {"edible": 1, "believe": 1 + 8 + 1, "kozel": 1}
"""Indices one decision takes at most (a placement: up to 8 cards, then the claim)."""


def _game_type(name: str) -> pyspiel.GameType:
    game = get_game(name)
    return pyspiel.GameType(
        short_name=f"card_arena_{name}",
        long_name=f"Card Arena {game.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_seats,
        min_num_players=game.min_seats,
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": _DEFAULT_PLAYERS[name], "seed": 0},
    )


class ArenaGame(pyspiel.Game):  # type: ignore[misc]
    """One of the arena's games for OpenSpiel (see the module docstring)."""

    def __init__(self, name: str, params: dict[str, Any]) -> None:
        self.game = get_game(name)
        self.encoding: Encoding = encoding_for(name)
        self.config = self.game.config_type()
        players = int(params.get("players", _DEFAULT_PLAYERS[name]))
        self.game.check_seats(players)
        most = max(self.game.scores_for([0] * players, {}))  # every seat sharing the first place
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.actions,
            max_chance_outcomes=0,
            num_players=players,
            min_utility=0.0,
            max_utility=float(max(players - 1, most, 1)),
            max_game_length=self.config.action_cap * _MOST_STEPS[name],
        )
        super().__init__(_game_type(name), info, params)
        self.seed = int(params.get("seed", 0))
        self.dealt = 0

    def new_initial_state(self) -> ArenaState:
        """The next game: dealt from the seed of its number."""
        rng = random.Random(derive_seed(self.seed, "openspiel", self.dealt))
        self.dealt += 1
        return ArenaState(self, self.game.new_state(self.config, self.num_players(), rng), rng)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> ArenaObserver:
        return ArenaObserver(self.encoding)


class ArenaState(pyspiel.State):  # type: ignore[misc]
    """A game in progress: the engine's state, its random source and a placement's pending indices."""

    def __init__(self, game: ArenaGame, state: GameState[Any, Any], rng: random.Random) -> None:
        super().__init__(game)
        self.encoding = game.encoding
        self.state = state
        self.rng = rng
        self.pending: Pending = game.encoding.start

    def current_player(self) -> int:
        seat = self.state.to_act()
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def seen(self, player: int) -> Any:
        """What ``player`` is shown (``sdk.envs.encoding.shown``)."""
        return shown(self.encoding, self.state, player, self.pending)

    def _legal_actions(self, player: int) -> list[int]:
        return [int(index) for index in np.flatnonzero(self.seen(player).mask)]

    def _apply_action(self, action: int) -> None:
        seat = self.state.to_act()
        assert seat is not None
        seen = self.seen(seat)
        move = seen.actions.get(action)
        if move is None:
            move, self.pending = self.encoding.decode(action, seen.observation, self.pending)
        if move is not None:
            self.state.apply(move, self.rng)

    def _action_to_string(self, player: int, action: int) -> str:
        if self.state.to_act() != player:
            return f"action {action}"
        seen = self.seen(player)
        move = seen.actions.get(action)
        if move is None:
            move, _ = self.encoding.decode(action, seen.observation, self.pending)
        return repr(move) if move is not None else f"add a card of kind {action - features.BELIEVE_ADD}"

    def is_terminal(self) -> bool:
        return self.state.to_act() is None

    def returns(self) -> list[float]:
        if self.state.to_act() is not None:
            return [0.0] * self.state.num_seats
        return [float(score) for score in self.state.result().scores]

    def __str__(self) -> str:
        game = self.get_game()
        return str(game.game.public_view(self.state))


class ArenaObserver:
    """A seat's observation for OpenSpiel: ``sdk.features``' vector and the typed observation's text."""

    def __init__(self, encoding: Encoding) -> None:
        self.tensor = np.zeros(encoding.size, dtype=np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ArenaState, player: int) -> None:
        self.tensor[:] = state.seen(player).vector

    def string_from(self, state: ArenaState, player: int) -> str:
        return str(state.state.observation(player))


class EdibleGame(ArenaGame):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__("edible", params or {})


class BelieveGame(ArenaGame):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__("believe", params or {})


class KozelGame(ArenaGame):
    def __init__(self, params: dict[str, Any] | None = None) -> None:
        super().__init__("kozel", params or {})


for _game in (EdibleGame, BelieveGame, KozelGame):
    pyspiel.register_game(_game_type(_game().game.name), _game)
