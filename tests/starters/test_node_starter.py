"""The Node.js starter kit (``sdk/starters/node``): its build.sh makes one submission folder (the
bundle and its ``arena-bot.toml``) that plays every game legally through ``arena play`` in the
default bubblewrap sandbox, and passes ``arena bot validate``.

Without node and npm the tests skip, except under CI (``CI=true``), where they fail: CI must not
pass without having built and played the kit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "sdk" / "starters" / "node"

# Submission limits (arena.submissions.SubmissionLimits): files, bytes per file, bytes in all.
MAX_FILES = 200
MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_TOTAL_BYTES = 4 * 1024 * 1024

# Per game: the seats (the starter at seats 0 and 2 of the list) and how many games to play.
MATCHES = {
    "edible": (["STARTER", "builtin:random"], 10),
    "believe": (["STARTER", "builtin:random", "STARTER", "builtin:random"], 8),
    "kozel": (["STARTER", "builtin:random", "STARTER", "builtin:random"], 6),
}


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def bot_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit built by its own build.sh into a fresh folder."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        message = f"the Node.js starter needs {' and '.join(missing)} (Debian: apt-get install nodejs npm)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    out = tmp_path_factory.mktemp("node-starter") / "dist"
    build = subprocess.run(
        ["bash", str(KIT / "build.sh"), str(out)], capture_output=True, text=True, timeout=600
    )
    assert build.returncode == 0, f"build.sh failed:\n{build.stdout}\n{build.stderr}"
    return out


def test_build_makes_one_bundle_and_its_manifest_within_the_limits(bot_folder: Path) -> None:
    files = sorted(path for path in bot_folder.rglob("*") if path.is_file())
    assert [path.name for path in files] == ["arena-bot.toml", "bot.js"]
    assert (bot_folder / "arena-bot.toml").read_text() == 'run = ["node", "bot.js"]\n'
    sizes = [path.stat().st_size for path in files]
    assert len(files) <= MAX_FILES and max(sizes) <= MAX_FILE_BYTES and sum(sizes) <= MAX_TOTAL_BYTES
    # The protocol is embedded: the bundle needs no .proto beside it.
    assert "package arena.wire.v1" in (bot_folder / "bot.js").read_text()


@pytest.mark.parametrize("game", sorted(MATCHES))
def test_starter_plays_every_game_ok_in_the_sandbox(bot_folder: Path, tmp_path: Path, game: str) -> None:
    seats, games = MATCHES[game]
    bots = [str(bot_folder) if seat == "STARTER" else seat for seat in seats]
    replays = tmp_path / "replays"
    run = arena(
        "play",
        game,
        *bots,
        "--games",
        str(games),
        "--seed",
        "11",
        "--replays",
        str(replays),
        "--quiet",
        cwd=tmp_path,
    )
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    record = json.loads(next(replays.glob(f"{game}-*.json")).read_text())
    starters = {agent for agent, seat in enumerate(seats) if seat == "STARTER"}
    assert len(record["games"]) == games
    for played in record["games"]:
        for seat, agent in enumerate(played["seating"]):
            if agent in starters:
                assert played["statuses"][seat] == "ok", (game, played["index"], played["faults"])
        assert not [fault for fault in played["faults"] if fault["agent"] in starters], played["faults"]


def test_starter_passes_validation(bot_folder: Path, tmp_path: Path) -> None:
    run = arena("bot", "validate", str(bot_folder), "--game", "believe", "--store", "store", cwd=tmp_path)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert "validation PASSED" in run.stdout
