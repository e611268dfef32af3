"""Plays Edible at random, but in a blind pick names a position past the challenger's cards."""

from arena.games.edible import EdibleAction, EdibleObservation, Phase, PickBlind
from sdk import Bot, run


class BlindMisser(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        if observation.phase is Phase.BLIND_PICK:
            return PickBlind(observation.blind_choices)
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(BlindMisser())
