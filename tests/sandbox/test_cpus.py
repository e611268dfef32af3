"""Executor processes keep to a CPU each (``arena.sandbox.cpus``): one per CPU, never two on one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from arena.sandbox import cpus

CLAIMER = """
import os, sys
from arena.sandbox import cpus
cpu = cpus.claim()
print(cpu, sorted(cpus.here()), flush=True)
sys.stdin.read()
"""


def claimer(tmp_path: Path, **env: str) -> tuple[subprocess.Popen[str], str]:
    """A process that claims a CPU (locks in ``tmp_path``), says what it got, and holds it."""
    process = subprocess.Popen(
        [sys.executable, "-c", CLAIMER],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path), **env},
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def test_each_process_claims_a_cpu_of_its_own_until_none_is_left(tmp_path: Path) -> None:
    home = sorted(cpus.HOME)
    assert len(home) > 1, "this test needs a machine with two CPUs at least"
    held = [claimer(tmp_path, ARENA_PIN_CPU="1") for _ in range(len(home) + 1)]
    try:
        assert [said for _, said in held] == [f"{cpu} [{cpu}]" for cpu in home] + [f"None {home}"]
    finally:
        for process, _ in held:
            process.communicate("")
    # Their locks went with them: the next process finds the first CPU free again.
    process, said = claimer(tmp_path, ARENA_PIN_CPU="1")
    process.communicate("")
    assert said == f"{home[0]} [{home[0]}]"


def test_without_arena_pin_cpu_1_a_process_stays_where_it_was(tmp_path: Path) -> None:
    process, said = claimer(tmp_path, ARENA_PIN_CPU="")
    process.communicate("")
    assert said == f"None {sorted(cpus.HOME)}"
