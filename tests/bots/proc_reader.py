"""Reads what it can of its /proc outside the process folders (the machine-wide counters: load,
memory, pressure, locks, ...), every entry listed and these by name."""

import os
import sys
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

NAMED = ("loadavg", "stat", "meminfo", "uptime", "locks", "vmstat", "sys/fs/file-nr", "pressure/cpu")


def attempt(path: Path) -> str:
    try:
        if path.is_dir():
            return f"lists {sorted(os.listdir(path))}" if os.listdir(path) else "empty"
        return f"reads {len(path.read_bytes())} bytes"
    except OSError as error:
        return f"unreadable ({type(error).__name__})"


class ProcReader(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            listed = sorted(name for name in os.listdir("/proc") if not name.isdigit())
            print(f"listed: {listed}", file=sys.stderr)
            for name in sorted({*listed, *NAMED}):
                print(f"/proc/{name}: {attempt(Path('/proc', name))}", file=sys.stderr)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(ProcReader())
