"""Golden playthroughs: seeded random games of every registered game, step by step, as JSON Lines.

    .venv/bin/python scripts/golden.py           # regenerate tests/golden/*.jsonl
    .venv/bin/python scripts/golden.py --check   # exit 1 and name every file that differs

A file ``tests/golden/<game>-<seats>p-seed<seed>.jsonl`` holds one game: a header line
``{"game", "config", "seats", "seed"}``; then per decision ``{"step", "to_act", "observations"
(of every seat), "legal", "action"}``; and a last line ``{"result", "reveal"}``. The game's
random source is ``random.Random(seed)``; the actions are drawn uniformly from the legal ones
by a separate ``random.Random(seed + 1000)``, so a file changes only when the rules, the
observations or the action encoding change. ``tests/conformance/test_golden.py`` regenerates
every file in memory and compares; rerun this script when such a change is intended.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
import sys
from collections.abc import Mapping
from enum import Enum
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_DIR = ROOT / "tests" / "golden"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from arena.games.base import Game  # noqa: E402
from arena.games.registry import all_games  # noqa: E402
from arena.runner.replay import action_to_json  # noqa: E402

SEEDS = (1, 2)
"""One game at ``min_seats`` with the first seed and one at ``max_seats`` with the second."""


class GoldenCase(NamedTuple):
    game: Game[Any, Any, Any]
    seats: int
    seed: int

    @property
    def name(self) -> str:
        return f"{self.game.name}-{self.seats}p-seed{self.seed}"

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / f"{self.name}.jsonl"


def golden_cases() -> list[GoldenCase]:
    """Every golden game: per registered game, the fewest seats and up to four (more seats add
    little coverage and a lot of file: every step holds every seat's observation)."""
    cases: list[GoldenCase] = []
    for game in all_games():
        seat_counts = sorted({game.min_seats, min(game.max_seats, 4)})
        if len(seat_counts) == 1:
            seat_counts *= 2
        for seats, seed in zip(seat_counts, SEEDS, strict=True):
            cases.append(GoldenCase(game, seats, seed))
    return cases


def to_jsonable(obj: Any) -> Any:
    """``obj`` as plain JSON data: dataclasses and NamedTuples become objects of their fields,
    enums their values, tuples, lists and sets lists (sets sorted), mappings objects."""
    if isinstance(obj, Enum):
        return to_jsonable(obj.value)
    if obj is None or isinstance(obj, bool | int | str):
        return obj
    if isinstance(obj, float):
        if obj != obj or obj in (float("inf"), float("-inf")):
            raise ValueError(f"{obj!r} has no JSON form")
        return obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {spec.name: to_jsonable(getattr(obj, spec.name)) for spec in dataclasses.fields(obj)}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return {name: to_jsonable(value) for name, value in zip(obj._fields, obj, strict=True)}
    if isinstance(obj, list | tuple):
        return [to_jsonable(item) for item in obj]
    if isinstance(obj, set | frozenset):
        return sorted((to_jsonable(item) for item in obj), key=_dump)
    if isinstance(obj, Mapping):
        return {_key(key): to_jsonable(value) for key, value in obj.items()}
    raise TypeError(f"cannot convert {type(obj).__name__} {obj!r} to JSON")


def _key(key: Any) -> str:
    value = to_jsonable(key)
    return value if isinstance(value, str) else _dump(value)


def _dump(data: Any) -> str:
    """The one stable line format: sorted keys, no spaces."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def playthrough_lines(game: Game[Any, Any, Any], seats: int, seed: int) -> list[str]:
    """The golden file of one seeded random game, line by line (without newlines)."""
    config = game.config_type()
    rng = random.Random(seed)
    chooser = random.Random(seed + 1000)
    state = game.new_state(config, seats, rng)
    lines = [
        _dump({"game": game.game_id, "config": to_jsonable(config.to_dict()), "seats": seats, "seed": seed})
    ]
    step = 0
    while (seat := state.to_act()) is not None:
        if step >= config.action_cap:
            raise RuntimeError(f"{game.game_id} went past its action cap of {config.action_cap}")
        legal = state.legal_actions()
        action = state.random_action(chooser)
        lines.append(
            _dump(
                {
                    "step": step,
                    "to_act": seat,
                    "observations": [to_jsonable(state.observation(other)) for other in range(seats)],
                    "legal": [action_to_json(option) for option in legal],
                    "action": action_to_json(action),
                }
            )
        )
        state.apply(action, rng)
        step += 1
    lines.append(
        _dump({"result": to_jsonable(state.result().to_dict()), "reveal": to_jsonable(state.reveal())})
    )
    return lines


def file_text(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def stale_files() -> list[Path]:
    """Golden files that no case produces (a renamed game, a changed seed list)."""
    expected = {case.path for case in golden_cases()}
    return sorted(path for path in GOLDEN_DIR.glob("*.jsonl") if path not in expected)


def check() -> list[str]:
    """One message per golden file that is missing, differs or is stale."""
    problems: list[str] = []
    for case in golden_cases():
        relative = case.path.relative_to(ROOT)
        if not case.path.exists():
            problems.append(f"{relative}: missing")
            continue
        expected = playthrough_lines(case.game, case.seats, case.seed)
        actual = case.path.read_text().splitlines()
        if actual != expected:
            first = next(
                (i for i, (a, b) in enumerate(zip(actual, expected, strict=False)) if a != b),
                min(len(actual), len(expected)),
            )
            problems.append(f"{relative}: differs from line {first + 1}")
    problems += [f"{path.relative_to(ROOT)}: no golden case produces it" for path in stale_files()]
    return problems


def write() -> list[Path]:
    GOLDEN_DIR.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for case in golden_cases():
        case.path.write_text(file_text(playthrough_lines(case.game, case.seats, case.seed)))
        written.append(case.path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--check", action="store_true", help="compare instead of writing; exit 1 on a difference"
    )
    args = parser.parse_args(argv)
    if args.check:
        problems = check()
        for problem in problems:
            print(problem)
        if problems:
            print("run `.venv/bin/python scripts/golden.py` if the change is intended")
            return 1
        print(f"{len(golden_cases())} golden file(s) up to date")
        return 0
    for path in write():
        print(f"wrote {path.relative_to(ROOT)}")
    for path in stale_files():
        print(f"stale (no case produces it, delete it): {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
