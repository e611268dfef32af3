"""Sleeps past its deadline on its third decision of the match, then plays normally."""

import time

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class Sleeper(Bot[EdibleObservation, EdibleAction]):
    decisions = 0

    def act(self, observation: EdibleObservation) -> EdibleAction:
        self.decisions += 1
        if self.decisions == 3:
            time.sleep(1.5)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(Sleeper())
