"""Golden playthroughs: every checked-in ``tests/golden/*.jsonl`` file must be regenerated exactly.

A difference means a rule, an observation or the action encoding changed behaviour. If that was
intended, run ``.venv/bin/python scripts/golden.py`` and commit the new files.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from arena.games.registry import all_games

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "golden.py"
REGENERATE = "run `.venv/bin/python scripts/golden.py` if the change is intended"


def load_script() -> ModuleType:
    """``scripts/golden.py`` (scripts/ is not a package), imported from its path."""
    name = "golden_script"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPT)
    assert spec is not None and spec.loader is not None, SCRIPT
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


golden = load_script()
CASES = golden.golden_cases()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_golden_playthrough_is_unchanged(case: Any) -> None:
    path = case.path
    assert path.exists(), f"{path.relative_to(ROOT)} is missing: {REGENERATE}"
    expected = path.read_text().splitlines()
    actual = golden.playthrough_lines(case.game, case.seats, case.seed)
    for number, (want, got) in enumerate(zip(expected, actual, strict=False), start=1):
        assert got == want, f"{path.relative_to(ROOT)} line {number} differs: {REGENERATE}"
    assert len(actual) == len(expected), (
        f"{path.relative_to(ROOT)} has {len(expected)} lines, the game now gives {len(actual)}: {REGENERATE}"
    )


def test_every_game_has_a_golden_file_and_no_file_is_stale() -> None:
    names = {case.game.name for case in CASES}
    for game in all_games():
        assert game.name in names, f"no golden case for {game.name}"
        files = sorted(golden.GOLDEN_DIR.glob(f"{game.name}-*p-seed*.jsonl"))
        assert files, f"no golden file for {game.name}: {REGENERATE}"
    stale = golden.stale_files()
    assert not stale, f"golden files no case produces (delete them): {[str(path) for path in stale]}"


def test_golden_lines_are_deterministic_and_well_formed() -> None:
    """Two generations agree, and every line is canonical JSON with the documented keys."""
    case = next(case for case in CASES if case.game.lists_all_actions)  # every legal action listed
    lines = golden.playthrough_lines(case.game, case.seats, case.seed)
    assert golden.playthrough_lines(case.game, case.seats, case.seed) == lines
    header, *steps, last = (json.loads(line) for line in lines)
    assert header == {
        "game": case.game.game_id,
        "config": case.game.config_type().to_dict(),
        "seats": case.seats,
        "seed": case.seed,
    }
    assert steps, "a golden game with no decision"
    for number, step in enumerate(steps):
        assert set(step) == {"step", "to_act", "observations", "legal", "action"}
        assert step["step"] == number
        assert len(step["observations"]) == case.seats
        assert step["action"] in step["legal"]
    assert set(last) == {"result", "reveal"}
    for line in lines:
        assert json.dumps(json.loads(line), sort_keys=True, separators=(",", ":")) == line
