"""Bot start-up in the bubblewrap sandbox, cold against prepared ahead: ``python bench/startup.py``.

Each round plays a one-game edible match of two built-in random bots (Python bots through the
SDK, like any submission) twice, interleaved: once on sandboxes started for it (cold), once on
sandboxes the warm pool prepared ahead (``arena.sandbox.warm``). It prints the median time from
asking for the bots to both bots' first message (the runner's start-up: sandbox, interpreter,
connection, Hello) and the ratio (goal: at most 20 ms median warm).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import loop  # noqa: E402
from arena.games.registry import get_game  # noqa: E402
from arena.runner.terms import Limits  # noqa: E402
from arena.sandbox.bubblewrap import BubblewrapSandbox  # noqa: E402
from arena.sandbox.warm import POOL  # noqa: E402
from arena.transport.process import play_match  # noqa: E402

SEATS = 2
SETTLE_S = 1.0


def startup_ms(sandbox: BubblewrapSandbox) -> float:
    game = get_game("edible")
    specs = ["builtin:random"] * SEATS
    record = loop.run(play_match(game, game.config_type(), specs, sandbox, games=1, seed=1, limits=Limits()))
    return record.startup_s * 1000


def wait_for_pool(ready: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while POOL.ready() < ready:
        if time.monotonic() > deadline:
            raise SystemExit(
                f"the warm pool prepared only {POOL.ready()} of {ready} sandboxes in {timeout_s} s"
            )
        time.sleep(0.01)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="matches per mode (default 15)")
    args = parser.parse_args()
    cold_sandbox, warm_sandbox = BubblewrapSandbox(warm=False), BubblewrapSandbox(warm=True)
    startup_ms(warm_sandbox)  # the first take teaches the pool how many to keep ready
    cold, warm = [], []
    for _ in range(args.rounds):
        cold.append(startup_ms(cold_sandbox))
        wait_for_pool(SEATS)
        warm.append(startup_ms(warm_sandbox))
    cold_ms, warm_ms = statistics.median(cold), statistics.median(warm)
    print(f"bot start-up, {SEATS} Python bots in bubblewrap, median of {args.rounds} matches each:")
    print(f"  cold (sandbox and interpreter started for the match): {cold_ms:7.1f} ms")
    print(f"  warm (prepared ahead by the pool):                    {warm_ms:7.1f} ms")
    print(f"  warm / cold: {warm_ms / cold_ms:.2f}   goal: warm at most 20 ms")


if __name__ == "__main__":
    main()
