"""A Node bot shipping its node_modules against its bundle: ``python bench/own_dependencies.py``.

Builds the Node starter kit's bundled ``bot.js`` and the same bot unbundled beside the
``node_modules`` that ``npm ci --omit=dev`` installs (it needs the npm registry or npm's cache), then
plays them interleaved in the bubblewrap sandbox. It prints the files copied per process, the copy's
ms and the start-up ms (medians over rounds), and the unbundled bot's ratios over the bundle's.

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starters import SETTINGS, one_match  # noqa: E402
from startup import wait_for_pool  # noqa: E402

from arena import loop  # noqa: E402
from arena.sandbox.backends import make_sandbox  # noqa: E402
from arena.submissions import copy_code, read_submission  # noqa: E402

KIT = ROOT / "sdk" / "starters" / "node"
EDIBLE = SETTINGS[0]


def run(command: list[str], folder: Path) -> None:
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(
            f"bench/own_dependencies.py: {' '.join(command[:2])} failed (Node.js, npm, and the npm "
            f"registry or npm's cache are needed)\n{done.stdout}{done.stderr}"
        )


def bundled(folder: Path) -> Path:
    """The Node starter built by its build.sh: one bot.js and its manifest."""
    run(["bash", str(KIT / "build.sh"), str(folder)], ROOT)
    return folder


def unbundled(folder: Path) -> Path:
    """The Node starter's bot with its production dependencies installed beside it by npm."""
    shutil.copytree(ROOT / "tests" / "bots" / "unbundled_node", folder)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(KIT / name, folder)
    shutil.copy(KIT / "src" / "bot.js", folder)
    shutil.copy(ROOT / "proto" / "arena" / "wire" / "v1" / "arena.proto", folder)
    run(
        ["npm", "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"], folder
    )
    return folder


def copy_ms(folder: Path) -> float:
    with tempfile.TemporaryDirectory(prefix="arena-copy-") as target:
        started = time.perf_counter()
        copy_code(folder, Path(target))
        return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="rounds (default 9)")
    args = parser.parse_args()
    sandbox = make_sandbox("bubblewrap")
    with tempfile.TemporaryDirectory(prefix="arena-own-deps-") as work:
        bots = {"bundled": bundled(Path(work) / "bundled"), "unbundled": unbundled(Path(work) / "unbundled")}
        sizes = {name: read_submission(folder, skip_hidden=True) for name, folder in bots.items()}
        copies: dict[str, list[float]] = {name: [] for name in bots}
        startups: dict[str, list[float]] = {name: [] for name in bots}
        for folder in bots.values():  # a warm-up, not counted: caches filled, the pool taught
            loop.run(one_match(EDIBLE, str(folder), sandbox, 1, seed=0))
        for round_index in range(args.rounds):
            order = list(bots) if round_index % 2 == 0 else list(reversed(bots))
            for name in order:
                copies[name].append(copy_ms(bots[name]))
                wait_for_pool(EDIBLE.seats)
                _, startup, _ = loop.run(one_match(EDIBLE, str(bots[name]), sandbox, 1, seed=round_index))
                startups[name].append(startup)
    print(f"A Node bot's node_modules against its bundle, bubblewrap sandbox, {args.rounds} rounds (medians)")
    print(f"{'bot':<10} {'files':>6} {'MB':>6} {'copy ms':>8} {'start-up ms':>12}")
    for name in bots:
        files = sizes[name]
        megabytes = sum(map(len, files.values())) / 1e6
        print(
            f"{name:<10} {len(files):>6} {megabytes:>6.1f} {statistics.median(copies[name]):>8.1f}"
            f" {statistics.median(startups[name]):>12.1f}"
        )
    ratio = {
        figure: statistics.median(values["unbundled"]) / statistics.median(values["bundled"])
        for figure, values in (("copy", copies), ("start-up", startups))
    }
    print(f"unbundled / bundled: copy {ratio['copy']:.1f}x, start-up {ratio['start-up']:.2f}x")


if __name__ == "__main__":
    main()
