"""The arena's round trip for one fork request to the zygote: ``python bench/zygote_fork.py``.

Each request asks for a relay whose sandbox is a set of pipes (no bubblewrap), so the relay fails
to enter it and ends at once: what is timed is the zygote's part of a bot's start, from sending
the request to the relay's pid. Requests go ``--gap-ms`` apart, as a bubblewrap sandbox starts
between two real ones. Needs root (the zygote forks as root) and Linux.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.sandbox.zygote import FIXED_FDS, Zygote  # noqa: E402

REQUEST = {
    "uid": 61999,
    "cgroups": [],
    "home": [],
    "rlimits": [],
    "seccomp": "",
    "proc_subset": False,
    "env": {},
}


def round_trips_ms(zygote: Zygote, count: int, gap_s: float) -> list[float]:
    """``count`` fork requests' round trips, in ms."""
    times = []
    for _ in range(count):
        pipes = [os.pipe() for _ in FIXED_FDS]
        start = time.perf_counter()
        pid = zygote.fork(REQUEST, [writer for _, writer in pipes] + [pipes[0][0]])
        times.append((time.perf_counter() - start) * 1000)
        for reader, writer in pipes:
            os.close(reader)
            os.close(writer)
        zygote.reap(pid)
        time.sleep(gap_s)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="fork requests (default 200)")
    parser.add_argument("--gap-ms", type=float, default=20, help="pause between requests (default 20)")
    args = parser.parse_args()
    zygote = Zygote()
    try:
        round_trips_ms(zygote, 5, 0.02)  # the zygote's start and first forks
        times = round_trips_ms(zygote, args.requests, args.gap_ms / 1000)
    finally:
        zygote.close()
    print(f"zygote fork round trip, {args.requests} requests {args.gap_ms:g} ms apart:")
    print(f"  median {statistics.median(times):.2f} ms, min {min(times):.2f} ms")


if __name__ == "__main__":
    main()
