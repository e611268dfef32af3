"""Executor processes keep to a CPU each (``arena.sandbox.cpus``): one per CPU, never two on one;
and the weight a bot's tree has on the CPU follows the turns."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from arena.games.edible import Edible, EdibleConfig
from arena.sandbox import NoSandbox, cpus
from arena.transport.process import play_match

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
        env={
            **{key: value for key, value in os.environ.items() if key != "ARENA_PIN_CPU"},
            "TMPDIR": str(tmp_path),
            **env,
        },
    )
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def test_each_process_claims_a_cpu_of_its_own_until_none_is_left(tmp_path: Path) -> None:
    home = sorted(cpus.HOME)
    assert len(home) > 1, "this test needs a machine with two CPUs at least"
    held = [claimer(tmp_path) for _ in range(len(home) + 1)]
    try:
        assert [said for _, said in held] == [f"{cpu} [{cpu}]" for cpu in home] + [f"None {home}"]
    finally:
        for process, _ in held:
            process.communicate("")
    # Their locks went with them: the next process finds the first CPU free again.
    process, said = claimer(tmp_path)
    process.communicate("")
    assert said == f"{home[0]} [{home[0]}]"


def test_with_arena_pin_cpu_0_a_process_stays_where_it_was(tmp_path: Path) -> None:
    process, said = claimer(tmp_path, ARENA_PIN_CPU="0")
    process.communicate("")
    assert said == f"None {sorted(cpus.HOME)}"


class WeighingSandbox(NoSandbox):
    """Plain processes that note every turn the arena gives a slot: (slot, full weight)."""

    def __init__(self) -> None:
        self.turns: list[tuple[int, bool]] = []

    def turn(self, slot: int, full: bool) -> None:
        self.turns.append((slot, full))


def test_a_bot_has_the_least_weight_only_from_its_answer_to_its_next_turn_or_its_games_end() -> None:
    sandbox = WeighingSandbox()
    record = asyncio.run(
        play_match(Edible(), EdibleConfig(), ["builtin:random"] * 2, sandbox, games=3, seed=5, rotate=False)
    )
    slots = sorted({slot for slot, _ in sandbox.turns})
    assert len(slots) == 2
    for slot in slots:
        weights = [full for turned, full in sandbox.turns if turned == slot]
        # Full for each turn, the least once it answers, full again when each game ends.
        assert weights[-1] is True, weights
        assert weights.count(False) == sum(
            seat == record.games[index].seating.index(slots.index(slot))
            for index in range(3)
            for seat, _ in record.games[index].actions
        )
        assert "".join("F" if full else "l" for full in weights).count("Fl") == weights.count(False)
