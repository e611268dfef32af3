"""Raises on its third decision of the match, then plays normally."""

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class Raiser(Bot[EdibleObservation, EdibleAction]):
    decisions = 0

    def act(self, observation: EdibleObservation) -> EdibleAction:
        self.decisions += 1
        if self.decisions == 3:
            return self.explode()
        return self.legal_actions[0]

    def explode(self) -> EdibleAction:
        raise ZeroDivisionError("raiser bot divides by zero on purpose")


if __name__ == "__main__":
    run(Raiser())
