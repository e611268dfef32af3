"""Behaves only while it is being validated: legal moves when its match looks like a validation
match (the old one named its opponents ``random#N``, played 3 games and seeded the bot from
seed 0), and it fails every decision otherwise. It prints what it was told as ``INFO {...}``."""

import hashlib
import json
import sys

from arena.games.edible import EdibleAction, EdibleObservation
from arena.games.edible.bots import RandomBot
from sdk import MatchInfo, run


def old_bot_seed(seat: int) -> int:
    digest = hashlib.sha256(f"0:bot:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class ValidationSpotter(RandomBot[EdibleObservation, EdibleAction]):
    validating = False

    def on_match_start(self, match: MatchInfo) -> None:
        self.validating = (
            any(name.startswith("random#") for name in match.seat_names)
            or match.games == 3
            or match.bot_seed == old_bot_seed(match.seat)
        )
        told = {"names": match.seat_names, "games": match.games, "clocks": [match.decision_ms, match.bank_ms]}
        print("INFO " + json.dumps(told), file=sys.stderr, flush=True)

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if self.validating:
            return super().act(observation)
        raise RuntimeError("not being validated: misbehaving now")


if __name__ == "__main__":
    run(ValidationSpotter())
