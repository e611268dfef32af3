"""Plays Kozel at random, but answers a molodka window where it may declare with an ordinary lead."""

from arena.games.kozel import KozelAction, KozelObservation, Lead, Phase
from sdk import Bot, run


class MolodkaLeader(Bot[KozelObservation, KozelAction]):
    def act(self, observation: KozelObservation) -> KozelAction:
        if observation.phase is Phase.MOLODKA and len(self.legal_actions) > 1:
            return Lead(observation.hand[:1])
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(MolodkaLeader())
