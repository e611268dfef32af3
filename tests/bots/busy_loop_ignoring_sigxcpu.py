"""Ignores SIGXCPU and spins forever: the hard CPU limit's SIGKILL must still read as ``cpu``."""

import signal

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class Stubborn(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        signal.signal(signal.SIGXCPU, signal.SIG_IGN)
        spins = 0
        while True:
            spins += 1


if __name__ == "__main__":
    run(Stubborn())
