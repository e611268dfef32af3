"""Allocates (and touches) memory without end on its first decision: the sandbox's memory
limit must stop it (status ``memory``)."""

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

CHUNK = 16 * 1024 * 1024


class MemoryBomb(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        hoard = []
        while True:
            hoard.append(bytearray(b"\x01") * CHUNK)


if __name__ == "__main__":
    run(MemoryBomb())
