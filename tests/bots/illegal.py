"""Answers with a bid no game allows on its third decision of the match."""

from arena.games.edible import Bid, EdibleAction, EdibleObservation
from sdk import Bot, run


class Illegal(Bot[EdibleObservation, EdibleAction]):
    decisions = 0

    def act(self, observation: EdibleObservation) -> EdibleAction:
        self.decisions += 1
        if self.decisions == 3:
            return Bid(999)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(Illegal())
