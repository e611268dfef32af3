"""Plays randomly, holding 300 MB of memory it has written to: its process takes a while to die."""

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class Hoarder(Bot[EdibleObservation, EdibleAction]):
    def __init__(self) -> None:
        super().__init__()
        self.hoard = bytearray(300 * 1024 * 1024)
        self.hoard[::4096] = b"\x01" * len(self.hoard[::4096])

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(Hoarder())
