"""Reads its whole memory (``/proc/self/mem``) for what the zygote it was forked from kept of
other bots' fork requests: slot cgroup paths (``card-arena/slot-UID``), the replies naming a
relay's pid and the arena's requests to reap one (with the number, unlike the zygote's source
text). It reports its own uid, the slot uids whose paths it found and how many replies and reap
requests it found, then plays."""

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

# The patterns are built at run time, so that this file's text (in memory too) does not match them.
SLOT = re.compile(("card-arena/" + "slot-").encode() + rb"(\d+)")
REPLY = re.compile(("[{]" + '"pid": ').encode() + rb"\d+[}]")
REAP = re.compile(("[{]" + '"reap": ').encode() + rb"\d+[}]")
MAPPING = re.compile(r"^(?P<start>[0-9a-f]+)-(?P<end>[0-9a-f]+) r", re.MULTILINE)
"""A readable mapping's line in /proc/self/maps."""


def memory() -> Iterator[bytes]:
    """Every readable mapping of this process's memory, one after the other."""
    mem = os.open("/proc/self/mem", os.O_RDONLY)
    try:
        for span in MAPPING.finditer(Path("/proc/self/maps").read_text()):
            start, end = int(span["start"], 16), int(span["end"], 16)
            with contextlib.suppress(OSError, OverflowError):
                yield os.pread(mem, end - start, start)
    finally:
        os.close(mem)


slots: set[int] = set()
replies = reaps = 0
for data in memory():
    slots.update(int(uid) for uid in SLOT.findall(data))
    replies += len(REPLY.findall(data))
    reaps += len(REAP.findall(data))
report = {"uid": os.getuid(), "slots": sorted(slots), "replies": replies, "reaps": reaps}
print(f"sought: {json.dumps(report)}", file=sys.stderr)


class RequestSeeker(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(RequestSeeker())
