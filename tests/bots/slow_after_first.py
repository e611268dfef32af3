"""Plays its first game at once, then thinks 0.25 s a decision: a match that stays running."""

import time

from arena.games.base import GameResult
from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class Slow(Bot[EdibleObservation, EdibleAction]):
    name = "slow"
    games_done = 0

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if self.games_done:
            time.sleep(0.25)
        return self.rng.choice(self.legal_actions)

    def on_game_end(self, game_index: int, result: GameResult) -> None:
        self.games_done += 1


if __name__ == "__main__":
    run(Slow())
