"""A starter bot for Edible: copy this file and change ``act``.

Play it against two built-in bots with

    arena play edible path/to/your_bot.py builtin:random builtin:heuristic

The arena runs this file as its own process (``python your_bot.py``); ``run`` connects it.
Print to stderr to log: each match keeps your bot's log beside the replay.
"""

import sys

from arena.games.base import GameResult
from arena.games.edible import PASS, Bid, Card, EdibleAction, EdibleObservation, Phase, Place
from sdk import Bot, run


class StarterBot(Bot[EdibleObservation, EdibleAction]):
    name = "starter"

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if observation.phase is Phase.PLACE:
            # Keep the boot for later: a mat of sausages is safe to bid on.
            return Place(Card.SAUSAGE) if observation.hand_sausages else Place(Card.BOOT)
        if observation.phase is Phase.ADD_OR_BID and Card.BOOT not in observation.my_mat:
            return Bid(len(observation.my_mat))  # my own cards are turned first: a sure success
        if observation.phase is Phase.AUCTION:
            return PASS
        return self.rng.choice(self.legal_actions)

    def on_game_end(self, game_index: int, result: GameResult) -> None:
        print(f"game {game_index}: place {result.ranks[self.seat] + 1}", file=sys.stderr)


if __name__ == "__main__":
    run(StarterBot())
