"""``arena play`` copies a bot's folder into the sandbox under a submission's rules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BOTS = Path(__file__).resolve().parents[1] / "bots"
pytestmark = pytest.mark.bots_in_other_processes


def arena_play(bot: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "arena.cli", "play", "edible", str(bot), "builtin:random"]
    command += ["--games", "1", "--quiet", "--sandbox", "bubblewrap", "--logs", str(cwd / "logs")]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_local_play_refuses_links_out_of_the_bot_folder(tmp_path: Path) -> None:
    """Before: the copy (made as root) followed the links, so /bot held /etc/shadow and the
    arena's own environment."""
    folder = tmp_path / "bot"
    folder.mkdir()
    bot = folder / "bot.py"
    shutil.copy(BOTS / "folder_reader.py", bot)
    (folder / "helper.txt").write_text("a file of the bot's own\n")
    secret = tmp_path / "root-only"
    secret.write_text("root's secret\n")
    secret.chmod(0o600)
    os.symlink(secret, folder / "secret")
    os.symlink("/proc/self/environ", folder / "environ")
    refused = arena_play(bot, tmp_path)
    assert refused.returncode == 2
    assert "symbolic links are not allowed" in refused.stderr
    assert "Traceback" not in refused.stderr
    logs = (
        "".join(path.read_text() for path in (tmp_path / "logs").glob("*.log"))
        if (tmp_path / "logs").exists()
        else ""
    )
    assert "root's secret" not in refused.stdout + refused.stderr + logs
    (folder / "secret").unlink()
    (folder / "environ").unlink()
    played = arena_play(bot, tmp_path)
    assert played.returncode == 0, played.stderr
    log = "".join(path.read_text() for path in (tmp_path / "logs").glob("seat0-*.log"))
    assert 'FILE /bot/helper.txt b"a file of the bot\'s own\\n"' in log
    assert "root's secret" not in log
