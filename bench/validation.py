"""Validation's time: ``python bench/validation.py`` (``--runs N``, ``--games edible,kozel``).

A random bot of each game is submitted and validated in the bubblewrap sandbox
(``arena.tournament.validation.validate``: the checks, then a rated ladder's match of a drawn shape
against the built-ins), ``--runs`` times; it prints the median, least and most seconds, split into
the checks and the match, and the shapes drawn. Goal: about today's validation before it played
ladder shapes (20 games in one process at the fewest seats): on a 2-core machine at a load of 16 to
43, medians of 2.7 s (edible), 3.4 s (believe) and 10.0 s (kozel) then, and 5.6 s, 5.8 s and 7.3 s
with ladder shapes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from arena.sandbox.bubblewrap import BubblewrapSandbox  # noqa: E402
from arena.submissions import store_submission  # noqa: E402
from arena.tournament.validation import validate  # noqa: E402

BOT = """from arena.games.{game}.bots import RandomBot
from sdk import run

if __name__ == "__main__":
    run(RandomBot())
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--games", default="edible,believe,kozel")
    args = parser.parse_args()
    sandbox = BubblewrapSandbox()
    for game in args.games.split(","):
        totals, checks, shapes = [], [], []
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory() as home:
                source = Path(home) / "random_bot.py"
                source.write_text(BOT.format(game=game))
                artifact = store_submission(source, Path(home) / "store")
                started = time.perf_counter()
                report = validate(artifact, game, sandbox)
                totals.append(time.perf_counter() - started)
            assert report.passed, report.log[-3000:]
            checks.append(report.checks.seconds)
            shapes.append(len(report.record.names))
        print(
            f"{game:8} median {statistics.median(totals):5.1f} s (least {min(totals):.1f}, most "
            f"{max(totals):.1f}); checks {statistics.median(checks):.1f} s; seats drawn {sorted(shapes)}"
        )


if __name__ == "__main__":
    main()
