"""One arena process, for tests that run several on one machine: it plays edible matches in the
real bubblewrap sandbox for a while (two at least), then prints what happened as one JSON line.

    python arena_process.py PROCESSES SPEC SPEC

``PROCESSES``: the slots' process limit. Once its first sandboxes are prepared it prints
``ready`` and reads how many seconds to play from its stdin, so that several start together.
Printed at the end: matches played, infrastructure faults (matches that raised ``SandboxError``),
the games each seat played and those it did not end ``ok``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from typing import TypedDict

from arena.games.edible import Edible, EdibleConfig
from arena.runner.terms import Limits
from arena.sandbox import SandboxError, SandboxLimits
from arena.sandbox.bubblewrap import BubblewrapSandbox
from arena.transport.process import play_match

GAMES = 4
MATCHES = 2
CLOCKS = Limits(decision_ms=1000, bank_ms=2000)


class Report(TypedDict):
    """What the process prints at the end (see the module's docstring)."""

    matches: int
    infrastructure: list[str]
    games: list[int]
    not_ok: list[int]


def main() -> None:
    processes, specs = int(sys.argv[1]), sys.argv[2:]
    limits = SandboxLimits(processes=processes)
    BubblewrapSandbox(limits).prepare_ahead(len(specs), 10.0)
    print("ready", flush=True)
    until = time.time() + float(sys.stdin.readline())
    report: Report = {
        "matches": 0,
        "infrastructure": [],
        "games": [0] * len(specs),
        "not_ok": [0] * len(specs),
    }
    seed = 0
    while time.time() < until or report["matches"] + len(report["infrastructure"]) < MATCHES:
        seed += 1
        # A backend of its own for each match, as a tournament's executor has (each sweeps the
        # folders that arena processes gone left behind), the prepared sandboxes the process's.
        sandbox = BubblewrapSandbox(limits)
        try:
            record = asyncio.run(
                play_match(Edible(), EdibleConfig(), specs, sandbox, games=GAMES, seed=seed, limits=CLOCKS)
            )
        except SandboxError as error:
            report["infrastructure"].append(str(error)[:300])
            continue
        report["matches"] += 1
        for game in record.games:
            for agent in range(len(specs)):
                report["games"][agent] += 1
                report["not_ok"][agent] += game.statuses[game.seating.index(agent)] != "ok"
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
