"""High card's built-in bot."""

from __future__ import annotations

from arena.games.highcard.engine import HighCardAction, HighCardObservation

from arena.games.bot import Bot


class RandomBot(Bot[HighCardObservation, HighCardAction]):
    """Picks uniformly among the legal actions."""

    name = "random"

    def act(self, observation: HighCardObservation) -> HighCardAction:
        return self.rng.choice(self.legal_actions)
