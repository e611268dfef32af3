"""Dies with an uncaught fatal error on its third decision, mid-game."""

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class Fatal(BaseException):
    """Not an Exception, so the SDK does not catch it: the process dies with a traceback."""


class Exiter(Bot[EdibleObservation, EdibleAction]):
    decisions = 0

    def act(self, observation: EdibleObservation) -> EdibleAction:
        self.decisions += 1
        if self.decisions == 3:
            raise Fatal("exiter bot quits mid-game")
        return self.legal_actions[0]


if __name__ == "__main__":
    run(Exiter())
