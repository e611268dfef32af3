"""The edible training example in short: train.py trains through the environment for a few hundred
decisions and exports a model, which the example's bot loads in the bubblewrap sandbox (the bot
runtime's onnxruntime) and plays legal games with against the heuristic."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from sandboxed import CLOCKS, SEED, bubblewrap, run_bounded

from arena.games.registry import get_game
from arena.runner.terms import Status
from arena.transport.process import play_match

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "sdk" / "examples" / "edible_model"


def test_a_short_training_exports_a_model_the_bot_plays_legal_games_with(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "bot.py", tmp_path / "bot.py")
    short = ["--steps", "300", "--batch", "150", "--tables", "8", "--evaluate", "16", "--report", "300"]
    trained = subprocess.run(
        [sys.executable, str(EXAMPLE / "train.py"), *short, "--output", str(tmp_path / "model.onnx")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert trained.returncode == 0, trained.stderr
    score = re.search(r"greedy, scores ([0-9.]+) against builtin:heuristic", trained.stdout)
    assert score is not None and 0.0 <= float(score.group(1)) <= 1.0, trained.stdout
    assert (tmp_path / "model.onnx").stat().st_size > 0
    game = get_game("edible")
    record = run_bounded(
        lambda: play_match(
            game,
            game.config_type(),
            [str(tmp_path / "bot.py"), "builtin:heuristic"],
            bubblewrap(),
            games=2,
            seed=SEED,
            limits=CLOCKS,
        )
    )
    assert len(record.games) == 2
    for played in record.games:
        assert set(played.statuses) == {Status.OK}, record.logs[0]
    assert "loading model.onnx with onnxruntime" in record.logs[0]
