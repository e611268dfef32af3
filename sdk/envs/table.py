"""A match's games played index by index: the engine, seats, seeds and rewards behind every environment.

A ``Table`` seats ``agents`` (agent i starts at seat i) and plays a match's games one after
another as the arena's match runner does (``arena.runner.match``): each game's seed derives from
the match seed (``deals.game_seed``), the seats rotate one place per game (``rotate``), duplicate
deals replay each deal in every rotation (``duplicate``), and believe's dealer carries over from
the game before in the leg. So a game played here with a match seed and actions ends as the same
game played by the runner. Rewards are the game's scores (its one scoring rule), per agent.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from arena.games.base import GameConfig, GameResult, GameState, IllegalAction
from arena.games.registry import get_game
from arena.runner.deals import carried_dealer, game_seed, new_seed, previous_game, seating_for
from sdk import features
from sdk.envs.encoding import Pending, Shown, encoding_for, shown


class Table:
    """One match's games on the engine, played by agents 0..agents-1 through action indices."""

    def __init__(
        self,
        game: str,
        agents: int | None = None,
        config: GameConfig | dict[str, Any] | None = None,
        *,
        rotate: bool = True,
        duplicate: bool = False,
    ) -> None:
        self.game = get_game(game)
        self.encoding = encoding_for(self.game.name)
        self.agents = self.game.min_seats if agents is None else agents
        if config is None:
            config = self.game.config_type()
        elif isinstance(config, dict):
            config = self.game.config_type.from_dict(config)
        self.config = config
        self.game.check_seats(self.agents)
        self.game.check_config(config, self.agents)
        features.check_config(self.game.name, config)
        self.rotate = rotate or duplicate
        self.duplicate = duplicate
        self.seed = 0
        self.game_index = -1
        self.results: dict[int, tuple[tuple[int, ...], GameResult]] = {}
        """Each game of the match played so far: its seating and result (believe's dealer)."""
        self.state: GameState[Any, Any] = self.game.new_state(config, self.agents, random.Random(0))
        self.rng = random.Random(0)
        self.seating: tuple[int, ...] = tuple(range(self.agents))
        """``seating[seat]``: the agent at ``seat`` in the current game."""
        self.seats: list[int] = list(range(self.agents))
        """``seats[agent]``: the seat of ``agent`` in the current game."""
        self.pending: Pending = self.encoding.start
        self.decisions = 0
        """Engine actions played at this table, all games together."""
        self._shown: tuple[int, Shown] | None = None
        """What a seat was last shown, kept until the state changes (a placement's steps change
        its arrays in place: callers copy them)."""

    # -- the match --

    def new_match(self, seed: int | None = None) -> None:
        """Start a match: seeded by ``seed``, or by a seed nobody chose. ``new_game`` plays its first game."""
        self.seed = new_seed() if seed is None else seed
        self.game_index = -1
        self.results = {}

    def new_game(self) -> None:
        """Deal the match's next game, seated and seeded as the match runner would (the game before,
        if left unfinished, is abandoned: believe's dealer is then drawn as in a match's first game)."""
        self.game_index += 1
        index, agents = self.game_index, self.agents
        self.seating = seating_for(index, agents, self.rotate)
        self.seats = [self.seating.index(agent) for agent in range(agents)]
        self.rng = random.Random(game_seed(self.seed, index, agents, self.duplicate))
        dealer = None
        before = previous_game(index, agents, self.duplicate)
        if before in self.results:  # a game abandoned before its end names no dealer
            seating, result = self.results[before]
            dealer = carried_dealer(self.game, self.seating, seating, result)
        self.results.pop(index - 2 * agents, None)
        self.state = self.game.new_state(self.config, agents, self.rng, dealer)
        self.pending = self.encoding.start
        self._shown = None

    # -- one game --

    def to_act(self) -> int | None:
        """The agent to act, or ``None`` once the game is over."""
        seat = self.state.to_act()
        return None if seat is None else self.seating[seat]

    def observation(self, agent: int) -> Any:
        """``agent``'s typed observation: the engine's ``observation`` of its seat (the one it
        was shown, if the state has not changed since)."""
        seat = self.seats[agent]
        if self._shown is not None and self._shown[0] == seat:
            return self._shown[1].observation
        return self.state.observation(seat)

    def shown(self, agent: int) -> Shown:
        """What ``agent`` is shown now (``sdk.envs.encoding.shown``). Its arrays are the table's,
        changed in place by a placement's steps: copy what you keep."""
        seat = self.seats[agent]
        if self._shown is None or self._shown[0] != seat:
            self._shown = (seat, shown(self.encoding, self.state, seat, self.pending))
        return self._shown[1]

    def is_legal(self, index: int) -> bool:
        """Whether the agent to act may play action index ``index`` now."""
        seat = self.state.to_act()
        return seat is not None and self._allows(self.shown(self.seating[seat]), index)

    @staticmethod
    def _allows(seen: Shown, index: int) -> bool:
        return 0 <= index < len(seen.mask) and bool(seen.mask[index])

    def play(self, index: int) -> Any:
        """Play action index ``index`` for the agent to act; the engine action it finished (believe's
        adds finish none: ``None``). An index its mask forbids raises ``ValueError`` saying why."""
        seat = self.state.to_act()
        if seat is None:
            raise ValueError("the game is over: reset for the next one")
        last = self._shown
        seen = last[1] if last is not None and last[0] == seat else self.shown(self.seating[seat])
        if not (0 <= index < len(seen.mask) and seen.mask[index]):
            legal = [int(i) for i in np.flatnonzero(seen.mask)]
            raise ValueError(
                f"action {index} is not legal for agent {self.seating[seat]} now; legal: {legal}"
            )
        action, self.pending = self.encoding.advance(seen, index, self.pending)
        if action is not None:  # (a placement that grows leaves the state, and what is shown, as they are)
            self._shown = None
            self.state.apply(action, self.rng)
            self.decisions += 1
            self._finish_if_over()
        return action

    def play_action(self, action: Any) -> None:
        """Play the engine action ``action`` for the agent to act (a bot's, say); an illegal one
        raises ``IllegalAction`` saying why and changes nothing."""
        if self.pending != self.encoding.start:
            raise IllegalAction("a placement is half chosen: finish it with indices")
        self.state.apply(action, self.rng)
        self.decisions += 1
        self._shown = None
        self._finish_if_over()

    def _finish_if_over(self) -> None:
        if self.state.to_act() is None:
            self.results[self.game_index] = (self.seating, self.state.result())

    def over(self) -> bool:
        return self.state.to_act() is None

    def result(self) -> GameResult:
        """The finished game's result, by seat."""
        return self.results[self.game_index][1]

    def rewards(self) -> list[float]:
        """Each agent's score in the finished game (the game's scoring rule)."""
        scores = self.result().scores
        return [float(scores[seat]) for seat in self.seats]
