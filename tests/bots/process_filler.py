"""A bot that keeps its process limit nearly full for the whole match: before it connects it
forks sleeping children until the limit refuses one, lets a few go (room for the SDK's threads)
and plays with the rest alive. Whatever else runs as its uid, or in its slot's cgroups, finds no
room left to start a process or a thread.
"""

import os
import signal
import sys

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

ROOM = 8
"""Children it lets go again, for the SDK's threads."""


class ProcessFiller(Bot[EdibleObservation, EdibleAction]):
    def __init__(self) -> None:
        super().__init__()
        # Before the SDK starts its threads, so that fork is safe.
        children: list[int] = []
        while len(children) < 1000:
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                while True:
                    signal.pause()
            children.append(pid)
        for pid in children[:ROOM]:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        print(f"process filler: holds {len(children) - ROOM} children", file=sys.stderr)

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(ProcessFiller())
