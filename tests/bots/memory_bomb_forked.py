"""A memory bomb spread over processes, each under its own address-space limit: before the bot
connects, children each fill and touch most of that limit at once. The tree's memory limit
must stop them (the kernel kills some); the bot reports how its children ended and plays on."""

import json
import os
import signal
import sys
import time
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

CHILDREN = 6


def hog(size: int) -> None:
    Path("/proc/self/oom_score_adj").write_text("1000")  # the kernel kills children first
    hoard = bytearray(b"\x01") * size
    time.sleep(1.0)
    os._exit(0 if hoard else 1)


class MemoryBombForked(Bot[EdibleObservation, EdibleAction]):
    def __init__(self) -> None:
        super().__init__()
        size = json.loads(Path(__file__).with_name("target.json").read_text())["bytes_per_child"]
        children = []
        for _ in range(CHILDREN):
            pid = os.fork()
            if pid == 0:
                hog(size)
            children.append(pid)
        endings = []
        for pid in children:
            _, status = os.waitpid(pid, 0)
            if os.WIFSIGNALED(status):
                endings.append(signal.Signals(os.WTERMSIG(status)).name)
            else:
                endings.append(f"exit {os.WEXITSTATUS(status)}")
        print(f"children: {' '.join(endings)}", file=sys.stderr)

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(MemoryBombForked())
