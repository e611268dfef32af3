"""Self-play at many tables at once, for training: one batch of vectors in, one batch of indices out.

``SelfPlay("edible", tables=64, agents=3, seed=1)`` plays 64 matches side by side (``sdk.envs.table``;
table i's match seed derives from ``seed`` and i). ``observe()`` gives, per table, the vector and
mask of the agent to act and which agent that is; ``step(indices)`` plays one index at every table
and returns each table's rewards (all 0 until its game ends, then every agent's score) and whether
its game ended; a table whose game ended deals its match's next game at once. No PettingZoo or
Gymnasium in the loop: a policy network takes the batch as it is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.games.base import GameConfig
from arena.runner.deals import derive_seed, new_seed
from sdk.envs.table import Table


class SelfPlay:
    """``tables`` matches of one game, every seat played by the caller (see the module docstring)."""

    def __init__(
        self,
        game: str,
        tables: int,
        agents: int | None = None,
        config: GameConfig | dict[str, Any] | None = None,
        *,
        seed: int | None = None,
        rotate: bool = True,
        duplicate: bool = False,
    ) -> None:
        if tables < 1:
            raise ValueError(f"self-play needs at least one table, not {tables}")
        self.tables = [Table(game, agents, config, rotate=rotate, duplicate=duplicate) for _ in range(tables)]
        first = self.tables[0]
        self.vectors = np.zeros((tables, first.encoding.size), dtype=np.float32)
        self.masks = np.zeros((tables, first.encoding.actions), dtype=np.int8)
        self.acting = np.zeros(tables, dtype=np.int64)
        base = new_seed() if seed is None else seed
        for number, table in enumerate(self.tables):
            table.new_match(derive_seed(base, "table", number))
            table.new_game()
            self._show(number)

    def _show(self, number: int) -> None:
        table = self.tables[number]
        agent = table.to_act()
        assert agent is not None, "a table's game is dealt afresh as soon as it ends"
        seen = table.shown(agent)
        self.vectors[number] = seen.vector
        self.masks[number] = seen.mask
        self.acting[number] = agent

    def observe(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64]]:
        """Per table: the acting agent's vector and mask, and the acting agent (copies)."""
        return self.vectors.copy(), self.masks.copy(), self.acting.copy()

    def step(
        self, indices: Sequence[int] | npt.NDArray[np.integer[Any]]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Play ``indices[i]`` at table i; per table, every agent's reward and whether its game ended.
        An index its mask forbids raises ``ValueError`` naming the table."""
        if len(indices) != len(self.tables):
            raise ValueError(f"give one index per table ({len(self.tables)}), not {len(indices)}")
        rewards = np.zeros((len(self.tables), self.tables[0].agents), dtype=np.float32)
        ended = np.zeros(len(self.tables), dtype=np.bool_)
        for number, (table, index) in enumerate(zip(self.tables, indices, strict=True)):
            try:
                table.play(int(index))
            except ValueError as error:
                raise ValueError(f"table {number}: {error}") from None
            if table.over():
                rewards[number] = table.rewards()
                ended[number] = True
                table.new_game()
            self._show(number)
        return rewards, ended
