"""Spins forever on its first decision: its CPU time limit must kill it (status ``cpu``)."""

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class BusyLoop(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        spins = 0
        while True:
            spins += 1


if __name__ == "__main__":
    run(BusyLoop())
