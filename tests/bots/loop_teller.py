"""Plays randomly and says on stderr which event loop its SDK runs it on."""

import asyncio
import sys

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run
from sdk.bot import MatchInfo


class LoopTeller(Bot[EdibleObservation, EdibleAction]):
    def on_match_start(self, match: MatchInfo) -> None:
        loop = type(asyncio.get_running_loop())
        print(f"loop-teller: {loop.__module__}.{loop.__qualname__}", file=sys.stderr)

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(LoopTeller())
