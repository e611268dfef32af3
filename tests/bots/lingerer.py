"""Plays randomly, says goodbye on stderr at the match's end, and once its stream is closed
lingers a second before leaving a mark in a file beside this one (unless it is ended first)."""

import sys
import time
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class Lingerer(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.rng.choice(self.legal_actions)

    def on_match_end(self) -> None:
        print("lingerer: the match is over", file=sys.stderr)


if __name__ == "__main__":
    run(Lingerer())
    time.sleep(1.0)
    Path(__file__).with_name("lingered").write_text("still running a second after the match\n")
