"""The Python bot runtime in the real bubblewrap sandbox: what a bot may import (numpy,
onnxruntime, the SDK and the engines) works in every game, and nothing of the server does, however
the bot looks for it; the trained starter passes its check and validation."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sandboxed import (
    CLOCKS,
    GAMES,
    SEED,
    bubblewrap,
    lines_starting,
    no_bot_process_outlives_a_match,
    run_bounded,
)

from arena.games.registry import get_game
from arena.manifest import python_runtime
from arena.runner.terms import Status
from arena.transport.process import play_match

__all__ = ["no_bot_process_outlives_a_match"]
ROOT = Path(__file__).resolve().parents[2]
MODEL_STARTER = ROOT / "sdk" / "examples" / "edible_model"

# Plays any game: scores its legal actions with the starter's network (any input will do) and a
# numpy draw, so that both libraries run in every decision.
LIBRARY_USER = """
import sys
from pathlib import Path

import numpy as np
import onnxruntime

from arena.games.believe.bots import random_legal_action
from sdk import Bot, run

options = onnxruntime.SessionOptions()
options.intra_op_num_threads = options.inter_op_num_threads = 1
model = onnxruntime.InferenceSession(str(Path(__file__).with_name("model.onnx")), options)
width = model.get_inputs()[0].shape[1]
print(f"numpy {np.__version__}, onnxruntime {onnxruntime.__version__}", file=sys.stderr)


class LibraryUser(Bot):
    def act(self, observation):
        (scores,) = model.run(None, {"features": np.full((1, width), len(self.legal_actions), np.float32)})
        if not self.legal_actions:  # believe's placements, too many to list
            return random_legal_action(observation, self.rng)
        noise = np.random.default_rng(self.rng.getrandbits(32)).random(len(self.legal_actions))
        return self.legal_actions[int(np.argmax(noise + 0 * scores[0, 0]))]


run(LibraryUser())
"""

# Looks for the server's libraries and the arena's own packages every way a bot can: plain
# imports, then with every site-packages folder of the host it can name put on its path.
SERVER_SEEKER = """
import sys

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

def attempt(when):
    for name in ("sqlalchemy", "celery", "fastapi", "arena.store", "arena.web", "arena.tournament",
                 "arena.ratings", "arena.ladder", "workers"):
        try:
            __import__(name)
            print(f"{when} {name}: imported", file=sys.stderr)
        except ModuleNotFoundError as error:
            print(f"{when} {name}: ModuleNotFoundError {error}", file=sys.stderr)


attempt("plain")
sys.path[:0] = TARGETS
attempt("searching")


class Seeker(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation):
        return self.rng.choice(self.legal_actions)


run(Seeker())
"""
SOUGHT = ("sqlalchemy", "celery", "fastapi", "arena.store", "arena.web", "arena.tournament")


def play_game(name: str, specs: list[str]) -> Any:
    game = get_game(name)
    seats = {"edible": 3, "believe": 3, "kozel": 4}[name]
    return run_bounded(
        lambda: play_match(
            game,
            game.config_type(),
            (specs * seats)[:seats],
            bubblewrap(),
            games=GAMES,
            seed=SEED,
            limits=CLOCKS,
        )
    )


@pytest.mark.bots_in_other_processes
def test_the_runtime_holds_the_promised_libraries_and_nothing_of_the_server() -> None:
    runtime = python_runtime()
    assert runtime.installed(), runtime.missing()
    libraries = dict(runtime.libraries())
    assert {"numpy", "onnxruntime", "grpcio", "protobuf"} <= set(libraries)
    assert not {"SQLAlchemy", "celery", "fastapi", "pip", "sympy"} & set(libraries)


@pytest.mark.parametrize("game", ["edible", "believe", "kozel"])
def test_a_bot_using_numpy_and_onnxruntime_plays_every_game_ok(tmp_path: Path, game: str) -> None:
    (tmp_path / "bot.py").write_text(LIBRARY_USER)
    shutil.copy(MODEL_STARTER / "model.onnx", tmp_path / "model.onnx")
    record = play_game(game, [str(tmp_path / "bot.py"), "builtin:random"])
    assert len(record.games) == GAMES
    for played in record.games:
        assert set(played.statuses) == {Status.OK}, record.logs[0]
    versions = dict(python_runtime().libraries())
    said = f"numpy {versions['numpy']}, onnxruntime {versions['onnxruntime']}"
    assert lines_starting(record.logs[0], "numpy ") == [said], record.logs[0]


def host_packages() -> list[str]:
    """Every folder of Python packages on this host the bot could name: the arena's venv, its
    base installation's and the distribution's."""
    found = {Path(path) for path in sys.path if path.endswith("-packages")}
    for root in (Path(sys.base_prefix) / "lib", Path("/usr/lib"), Path("/usr/local/lib")):
        found |= set(root.glob("python3*/*-packages"))
    return sorted(str(path) for path in found)


def test_a_bot_cannot_import_the_server_however_it_looks(tmp_path: Path) -> None:
    targets = host_packages()
    assert any(Path(path, "sqlalchemy").is_dir() for path in targets), "the arena's own libraries are named"
    (tmp_path / "bot.py").write_text(SERVER_SEEKER.replace("TARGETS", repr(targets)))
    record = play_game("edible", [str(tmp_path / "bot.py"), "builtin:random"])
    log = record.logs[0]
    for when in ("plain", "searching"):
        for name in SOUGHT:
            (line,) = lines_starting(log, f"{when} {name}: ")
            assert line.startswith(f"{when} {name}: ModuleNotFoundError No module named "), log
    assert {status for played in record.games for status in played.statuses} == {Status.OK}


def arena(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
    )


def validate_starter(home: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``arena bot validate`` of the trained starter, stored in ``home``."""
    command = ["bot", "validate", str(MODEL_STARTER), "--entry", "bot.py", "--game", "edible"]
    return arena(*command, cwd=home.parent, env={"ARENA_HOME": str(home), **env})


@pytest.mark.bots_in_other_processes
def test_the_trained_starter_passes_its_check_and_validation(tmp_path: Path) -> None:
    check = arena("bot", "check", str(MODEL_STARTER / "bot.py"), "--game", "edible", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "all passed" in check.stdout
    validate = validate_starter(tmp_path / "home")
    assert validate.returncode == 0, validate.stdout + validate.stderr
    assert "validation PASSED" in validate.stdout
    assert "loading model.onnx with onnxruntime" in validate.stdout


@pytest.mark.bots_in_other_processes
def test_without_the_runtime_the_sandbox_refuses_and_names_the_fix(tmp_path: Path) -> None:
    validate = validate_starter(tmp_path / "home", ARENA_RUNTIMES=str(tmp_path / "none-built"))
    assert validate.returncode == 3
    assert "the Python bot runtime python-1 is not installed" in validate.stderr
    assert "run bash deploy/setup.sh" in validate.stderr


@pytest.mark.bots_in_other_processes
def test_arena_runtimes_lists_the_bot_runtime_and_its_libraries(tmp_path: Path) -> None:
    listed = arena("runtimes", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    for name, version in python_runtime().libraries():
        assert f"{name} {version}" in listed.stdout
    missing = arena("runtimes", cwd=tmp_path, env={"ARENA_RUNTIMES": str(tmp_path / "none-built")})
    assert (
        "not installed: python3 (Python; the Python bot runtime python-1 is not installed" in missing.stdout
    )
    assert "run bash deploy/setup.sh" in missing.stdout
