"""The games as PettingZoo AEC environments: ``ArenaEnv("edible", agents=3)``.

Agents ``player_0``.. are the match's bots: ``reset(seed=S)`` starts a match with seed ``S`` and
deals its first game, and every ``reset()`` without a seed deals the match's next game, the seats
rotated one place as in an arena match (``sdk.envs.table``); in kozel, ``player_0`` and
``player_2`` are partners throughout and the sides alternate. An agent observes
``{"observation": its seat's vector, "action_mask": its legal indices}`` (``sdk.features``; the mask
is all 0 unless it is to act); ``typed_observation(agent)`` is the engine's own observation of its
seat, what a bot is given on the wire. Rewards come at the game's end: each agent's score by the
game's scoring rule. Believe's placements take several steps of the same agent (``sdk.features``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from arena.games.base import GameConfig
from sdk.envs.table import Table

ObsDict = dict[str, np.ndarray[Any, Any]]


def agent_name(agent: int) -> str:
    return f"player_{agent}"


def observation_space(table: Table) -> spaces.Dict:
    """An agent's observation space: the vector and the action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, np.inf, (table.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (table.encoding.actions,), np.int8),
        }
    )


class ArenaEnv(AECEnv):  # type: ignore[misc]
    """One of the arena's games as an AEC environment (see the module docstring)."""

    metadata = {"name": "card_arena_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str = "edible",
        agents: int | None = None,
        config: GameConfig | dict[str, Any] | None = None,
        *,
        rotate: bool = True,
        duplicate: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        self.render_mode = render_mode
        self.table = Table(game, agents, config, rotate=rotate, duplicate=duplicate)
        self.metadata = {**self.metadata, "name": f"card_arena_{self.table.game.name}_v0"}
        self.possible_agents = [agent_name(agent) for agent in range(self.table.agents)]
        self._index = {name: agent for agent, name in enumerate(self.possible_agents)}
        observation = observation_space(self.table)
        action = spaces.Discrete(self.table.encoding.actions)
        self.observation_spaces = {name: observation for name in self.possible_agents}
        self.action_spaces = {name: action for name in self.possible_agents}
        self._started = False
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """With ``seed`` (or the first time): a new match and its first game; otherwise the
        match's next game, seats rotated."""
        if seed is not None or not self._started:
            self.table.new_match(seed)
            self._started = True
        self.table.new_game()
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {name: {} for name in self.agents}
        self._select()

    def _select(self) -> None:
        agent = self.table.to_act()
        if agent is not None:
            self.agent_selection = self.possible_agents[agent]

    def observe(self, agent: str) -> ObsDict:
        seen = self.table.shown(self._index[agent])
        return {"observation": seen.vector.copy(), "action_mask": seen.mask.copy()}

    def typed_observation(self, agent: str) -> Any:
        """``agent``'s seat's observation as the engine (and the wire) gives it."""
        return self.table.observation(self._index[agent])

    def seat(self, agent: str) -> int:
        """``agent``'s seat in the current game."""
        return self.table.seats[self._index[agent]]

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: give an action index, not None")
        self._cumulative_rewards[agent] = 0.0
        if self.table.play(int(action)) is None:  # a placement grows: the same agent goes on
            return
        acting = self.table.to_act()
        if acting is not None:
            self.agent_selection = self.possible_agents[acting]
            return
        result = self.table.result()
        for index, reward in enumerate(self.table.rewards()):
            name = self.possible_agents[index]
            seat = self.table.seats[index]
            self.rewards[name] = reward
            self.terminations[name] = True
            self.infos[name] = {"seat": seat, "rank": result.ranks[seat], "score": reward}
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``ansi``: the public view of the game (what a spectator sees)."""
        if self.render_mode is None:
            return None
        view = self.table.game.public_view(self.table.state)
        return "\n".join(f"{name}: {value}" for name, value in view.items())

    def close(self) -> None:
        return None
