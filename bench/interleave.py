"""This tree against a baseline commit, interleaved: what ``bench/containment.py`` and
``bench/tournament.py`` share.

A bench script measures in a subprocess of itself (its hidden ``--measure`` mode prints one JSON
object) that imports ``arena`` from the tree under test: this tree, or commit ``REV`` checked out
in a temporary git worktree (``worktree``), so the baseline runs its own code while the measuring
script is this tree's. Runs alternate between the trees (``interleaved``), so that the machine's
load drifts alike over both, and each figure is a median of the runs (``median``), each ratio the
median of the ratios of runs taken one after the other (``paired``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

Figures = dict[str, float]


@contextlib.contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """Commit ``rev`` checked out (detached) in a temporary git worktree, removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="arena-baseline-"))
    tree = folder / "tree"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), rev],
        check=True,
        capture_output=True,
    )
    try:
        yield tree
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def short(rev: str) -> str:
    """``rev``'s abbreviated commit id."""
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", rev], check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def measure_in(tree: Path, script: Path, arguments: Sequence[str]) -> Figures:
    """Run ``script ARGUMENTS`` with ``arena`` imported from ``tree``; the JSON object it prints last."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, str(script), *arguments]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"measuring in {tree} failed ({' '.join(arguments)}):\n{done.stderr}")
    figures: Figures = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def interleaved(
    trees: dict[str, Path], script: Path, arguments: Sequence[str], repeats: int
) -> dict[str, list[Figures]]:
    """``repeats`` runs of ``script`` on each of ``trees`` (by name), taking turns."""
    runs: dict[str, list[Figures]] = {name: [] for name in trees}
    for _ in range(repeats):
        for name, tree in trees.items():
            runs[name].append(measure_in(tree, script, arguments))
    return runs


def median(runs: list[Figures], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def paired(over: list[Figures], over_key: str, under: list[Figures], under_key: str) -> float:
    """The median of ``over[i][over_key] / under[i][under_key]``: runs taken one after the other."""
    return statistics.median(a[over_key] / b[under_key] for a, b in zip(over, under, strict=True))
