"""Reports what a forked bot holds before the SDK opens anything: its ids, capabilities, no new
privileges, seccomp, session, open descriptors and the first draw of the random module. Then it
reads its whole memory (``/proc/self/mem``) for secrets of the form ``card-arena-secret-HEX``:
whatever the arena or the process it was forked from left there. ``target.json`` plants one in
its memory, so the scan shows it works."""

import json
import os
import random
import re
import sys
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

FIELDS = ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb", "NoNewPrivs", "Seccomp")


def secrets_in_memory() -> list[str]:
    # The pattern is built at run time, so that this file's text does not match it.
    pattern = re.compile(("card-arena-" + "secret-").encode() + rb"[0-9a-f]{32}")
    found: set[str] = set()
    with open("/proc/self/maps") as maps, open("/proc/self/mem", "rb", buffering=0) as memory:
        for line in maps:
            span, permissions = line.split()[:2]
            if not permissions.startswith("r"):
                continue
            start, end = (int(value, 16) for value in span.split("-"))
            try:
                memory.seek(start)
                data = memory.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            found.update(match.decode() for match in pattern.findall(data or b""))
    return sorted(found)


status = dict(line.split(":", 1) for line in Path("/proc/self/status").read_text().splitlines())
report: dict[str, object] = {name: status[name].split() for name in FIELDS}
report["descriptors"] = sorted(int(name) for name in os.listdir("/proc/self/fd"))
report["session_leader"] = os.getsid(0) == os.getpid()
report["first_draw"] = random.random()
report["own_environ"] = Path("/proc/self/environ").read_bytes().decode()
target = Path(__file__).with_name("target.json")
planted = json.loads(target.read_text()) if target.exists() else {}
report["secrets"] = secrets_in_memory()
print(f"inspected: {json.dumps(report)}", file=sys.stderr)


class SelfInspector(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(SelfInspector())
