"""Dumps every environment it can reach: its own, and every /proc/PID/environ it can see,
including the arena's own process id (from target.json)."""

import json
import os
import sys
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class EnvironReader(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            arena_pid = json.loads(Path(__file__).with_name("target.json").read_text())["arena_pid"]
            print(f"own environment: {dict(os.environ)!r}", file=sys.stderr)
            visible = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
            print(f"visible processes: {visible}", file=sys.stderr)
            for pid in sorted({*visible, os.getppid(), arena_pid}):
                for name in ("environ", "cmdline"):
                    path = f"/proc/{pid}/{name}"
                    try:
                        print(f"read {path}: {Path(path).read_bytes()!r}", file=sys.stderr)
                    except OSError as error:
                        print(f"blocked: {path}: {error!r}", file=sys.stderr)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(EnvironReader())
