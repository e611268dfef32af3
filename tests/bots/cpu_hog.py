"""Takes all the CPU it can while it plays random legal moves: before it connects, it forks the
number of busy children that ``target.json`` names (0 for the same bot, undisturbing), each in
a session (so a scheduling autogroup) of its own, spinning until the match ends. (Forked
before gRPC starts: a child of a gRPC process starts threads of its own.)"""

import json
import os
import sys
from pathlib import Path

from arena.games.kozel import KozelAction, KozelObservation
from sdk import Bot, run


class CpuHog(Bot[KozelObservation, KozelAction]):
    def act(self, observation: KozelObservation) -> KozelAction:
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    children = json.loads(Path(__file__).with_name("target.json").read_text())["children"]
    for _ in range(children):
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    print(f"spinning children: {children}", file=sys.stderr)
    run(CpuHog())
