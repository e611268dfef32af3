"""Plays believe legally, but its first placement carries ``cards`` (from ``target.json``) cards
of kind 0: an illegal action whose repr is megabytes (the message too, past a few thousand)."""

import json
import random
from pathlib import Path

from arena.games.believe import BelieveAction, BelieveObservation, random_legal_action
from arena.games.believe.engine import Place
from sdk import Bot, run

CARDS = json.loads((Path(__file__).parent / "target.json").read_text())["cards"]


class HugeAction(Bot[BelieveObservation, BelieveAction]):
    sent = False

    def act(self, observation: BelieveObservation) -> BelieveAction:
        if not self.sent and not observation.pile_open:
            self.sent = True
            return Place((0,) * CARDS, 0)
        return random_legal_action(observation, random.Random(0))


if __name__ == "__main__":
    run(HugeAction())
