"""Leaves a mark for whoever comes next in its sandbox: it reports what its /tmp held when it
started, then writes a file there and a line about itself, and plays on. A sandbox prepared ahead
must come to each bot as new: the next bot finds no mark."""

import os
import sys
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

print(f"found in /tmp: {sorted(os.listdir('/tmp'))}", file=sys.stderr)
Path("/tmp/mark").write_text("a bot was here")


class Marker(Bot[EdibleObservation, EdibleAction]):
    name = "marker"

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(Marker())
