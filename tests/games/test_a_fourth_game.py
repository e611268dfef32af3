"""A game is its folder alone: a toy fourth game (``highcard``, beside this file) joins the platform
by being put among the game folders, with no other module touched, and passes the conformance suite.

The folder is put among the games by adding its parent to ``arena.games.__path__`` in a fresh
interpreter, which is what copying it into ``arena/games/`` would do, without writing to the tree.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOY = Path(__file__).parent / "highcard"


def run_with_the_toy(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    folders = tmp_path / "games"
    shutil.copytree(TOY, folders / "highcard")
    prologue = f"import arena.games\narena.games.__path__.append({str(folders)!r})\n"
    return subprocess.run(
        [sys.executable, "-c", prologue + code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def test_the_toy_game_is_found_by_its_folder_and_plays(tmp_path: Path) -> None:
    code = (
        "from arena.cli import main\n"
        "assert main(['games']) == 0\n"
        "raise SystemExit(main(['play', 'highcard', 'builtin:random', 'builtin:random', 'builtin:random',"
        f" '--in-process', '--games', '6', '--quiet', '--replays', {str(tmp_path / 'replays')!r}]))\n"
    )
    result = run_with_the_toy(tmp_path, code)
    assert result.returncode == 0, result.stderr
    assert "highcard High card (id highcard@1, 2-4 seats)" in result.stdout
    assert "built-in bots: builtin:random" in result.stdout
    assert "edible" in result.stdout and "kozel" in result.stdout, "the three games are still there"
    assert len(list((tmp_path / "replays").glob("*.json*"))) == 1, "the match was recorded"


def test_the_toy_game_passes_the_conformance_suite(tmp_path: Path) -> None:
    code = (
        "import sys, pytest\n"
        "sys.exit(pytest.main(['tests/conformance/test_conformance.py', '-q', '-k', 'highcard',"
        " '-p', 'no:cacheprovider', '-p', 'no:randomly']))\n"
    )
    result = run_with_the_toy(tmp_path, code)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    tail = result.stdout.strip().splitlines()[-1]
    passed = int(tail.split(" passed")[0].split()[-1])
    assert passed >= 3 * 10 and "failed" not in tail, tail
