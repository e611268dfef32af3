"""One seat against fixed opponents as a Gymnasium environment: ``SeatEnv("edible", ["builtin:heuristic"])``.

The learner is agent 0 of a match (``sdk.envs.table``); the opponents are agents 1.., each a
built-in bot's name (``builtin:heuristic``, as ``arena/bots.py`` lists them), an ``sdk.Bot`` or
any callable ``(observation, legal_actions) -> action`` on the engine's typed observation. Bots
are told the match and each game as the in-process runner tells them (``begin_match``,
``begin_game``, ``on_game_end``). In kozel agent 2 is the learner's partner. ``reset(seed=S)``
starts a match; ``reset()`` deals its next game, seats rotated. An observation is the learner's
vector and action mask (``sdk.features``), also given by ``action_masks()`` (the name
MaskablePPO-style trainers call); the reward is the learner's score when its game ends.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np

from arena.bots import load_bot
from arena.games.base import GameConfig
from arena.runner.deals import derive_seed
from sdk.bot import Bot, MatchInfo
from sdk.envs.aec import ObsDict, observation_space
from sdk.envs.table import Table
from sdk.features import Mask

Policy = Callable[[Any, Sequence[Any]], Any]
"""An opponent: ``(typed observation, legal actions) -> engine action``."""
Opponent = str | Bot[Any, Any] | Policy

_THINK_MS = 1_000_000
"""The time a bot is told it has left: nobody's clock runs in training."""


class SeatEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """Agent 0 of a match against ``opponents`` (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(
        self,
        game: str,
        opponents: Sequence[Opponent],
        config: GameConfig | dict[str, Any] | None = None,
        *,
        rotate: bool = True,
        duplicate: bool = False,
        illegal_reward: float | None = None,
    ) -> None:
        self.table = Table(game, 1 + len(opponents), config, rotate=rotate, duplicate=duplicate)
        self.illegal_reward = illegal_reward
        self._abandoned = False
        name = self.table.game.name
        self.opponents = [load_bot(name, spec) if isinstance(spec, str) else spec for spec in opponents]
        self.observation_space = observation_space(self.table)
        self.action_space = gymnasium.spaces.Discrete(self.table.encoding.actions)
        self._started = False

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsDict, dict[str, Any]]:
        """With ``seed`` (or the first time): a new match and its first game; otherwise the
        match's next game. Opponents play until the learner is to act."""
        super().reset(seed=seed)
        if seed is not None or not self._started:
            self.table.new_match(seed)
            self._started = True
            self._begin_match()
        self.table.new_game()
        self._abandoned = False
        for agent, opponent in enumerate(self.opponents, start=1):
            if isinstance(opponent, Bot):
                opponent.begin_game(self.table.game_index, self.table.seats[agent])
        self._play_opponents()
        return self._observe(), self._info()

    def step(self, action: int | np.integer[Any]) -> tuple[ObsDict, float, bool, bool, dict[str, Any]]:
        """Play index ``action``. An illegal one raises ``ValueError`` saying which are legal, or,
        with an ``illegal_reward``, ends the episode with that reward (the game is abandoned)."""
        if self._abandoned:
            raise ValueError("the episode ended on an illegal action: reset for the next game")
        if self.illegal_reward is not None and not self.table.is_legal(int(action)):
            self._abandoned = True
            return self._observe(), self.illegal_reward, True, False, {**self._info(), "illegal": int(action)}
        self.table.play(int(action))
        self._play_opponents()
        reward = self.table.rewards()[0] if self.table.over() else 0.0
        return self._observe(), reward, self.table.over(), False, self._info()

    def action_masks(self) -> Mask:
        return self.table.shown(0).mask.copy()

    def _observe(self) -> ObsDict:
        seen = self.table.shown(0)
        return {"observation": seen.vector.copy(), "action_mask": seen.mask.copy()}

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"seat": self.table.seats[0]}
        if self.table.over():
            info["result"] = self.table.result()
        return info

    def _begin_match(self) -> None:
        table = self.table
        names = ("learner", *(f"opponent_{agent}" for agent in range(1, table.agents)))
        for agent, opponent in enumerate(self.opponents, start=1):
            if isinstance(opponent, Bot):
                opponent.begin_match(
                    MatchInfo(
                        match_id="training",
                        game=table.game.name,
                        game_version=table.game.version,
                        config=table.config,
                        seat=agent,
                        seat_names=names,
                        teams=tuple(table.game.team_of(seat) for seat in range(table.agents)),
                        games=0,
                        decision_ms=_THINK_MS,
                        bank_ms=0,
                        bot_seed=derive_seed(table.seed, "bot", 0, agent, bits=63),
                    )
                )

    def _play_opponents(self) -> None:
        """Let the opponents act until the learner is to act or the game ends; then tell the bots."""
        table = self.table
        while (agent := table.to_act()) not in (0, None):
            opponent = self.opponents[agent - 1]
            observation = table.observation(agent)
            legal = table.state.legal_actions()
            if isinstance(opponent, Bot):
                table.play_action(opponent.decide(observation, legal, _THINK_MS))
            else:
                table.play_action(opponent(observation, legal))
        if table.over():
            for opponent in self.opponents:
                if isinstance(opponent, Bot):
                    opponent.on_game_end(table.game_index, table.result())

    def render(self) -> None:
        return None


def masked_random(mask: Mask, rng: np.random.Generator) -> int:
    """A uniformly random legal index: a baseline policy for the learner's seat."""
    return int(rng.choice(np.flatnonzero(mask)))
