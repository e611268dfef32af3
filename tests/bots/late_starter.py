"""An honest bot that takes a while to start (as a bot with a large model to load would), and
then plays legal moves."""

import time

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class LateStarter(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[-1]


if __name__ == "__main__":
    time.sleep(1.5)
    run(LateStarter())
