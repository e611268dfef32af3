"""Plays Believe at random, but with no cards left it still places a card instead of calling."""

from arena.games.believe import BelieveAction, BelieveObservation, Place, random_legal_action
from sdk import Bot, run


class EmptyHandPlacer(Bot[BelieveObservation, BelieveAction]):
    def act(self, observation: BelieveObservation) -> BelieveAction:
        if observation.hand_size == 0:
            return Place((0,), max(observation.pile_kind, 0))
        return random_legal_action(observation, self.rng)


if __name__ == "__main__":
    run(EmptyHandPlacer())
