"""``arena match`` as an organiser runs it: a tournament's match, played by a worker with a data folder
of its own, listed, shown, saved as a replay file that ``arena replay verify`` accepts, and its
logs read by their bot's owner only, from a third folder that only shares the database. (An unknown
match id: ``tests/cli/test_cli.py``'s bad arguments.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from fleet import PLAY_ONE, database
from sqlalchemy import select

from arena.store.db import Store
from arena.store.models import Match, MatchStatus
from arena.store.repo import create_user

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "sdk" / "examples" / "edible_starter.py"


def arena(home: Path, *args: str, token: str = "", cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """An ``arena`` command with the data folder ``home`` and the API token ``token``; the store
    comes from ``--db`` (nothing of this environment's ``ARENA_`` settings reaches it)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
    env |= {"ARENA_HOME": str(home), "ARENA_API_TOKEN": token}
    command = [sys.executable, "-m", "arena.cli", *args]
    return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def ok(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def refused(done: subprocess.CompletedProcess[str], message: str) -> None:
    """Exit status 2 and one line that says ``message``; no traceback."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and message in lines[0], done.stdout + done.stderr
    assert lines[0].startswith("arena: error: ") and "Traceback" not in done.stdout


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_match_played_elsewhere_is_listed_shown_saved_and_its_logs_read_by_their_owner(
    kind: str, tmp_path: Path
) -> None:
    submitter, worker, caller = (tmp_path / name for name in ("submitter", "worker", "caller"))
    for folder in (submitter, worker, caller):
        folder.mkdir()
    with database(kind, tmp_path) as url:
        store = Store(url)
        store.upgrade()
        with store.session() as session:
            ada, bob = (create_user(session, name)[1] for name in ("ada", "bob"))
            admin = create_user(session, "cat", admin=True)[1]
        db = ["--db", url]
        ok(
            arena(
                submitter, "bot", "submit", str(STARTER), "--name", "sly", "--game", "edible", *db, token=ada
            )
        )
        field = ["--game", "edible", "--bots", "builtin:random", "sly", "--games-per-match", "2"]
        ok(arena(submitter, "tournament", "create", *field, *db, token=ada))
        ok(arena(submitter, "tournament", "create", *field, *db, token=ada))  # never played
        with store.session() as session:
            played, pending = session.scalars(select(Match.id).order_by(Match.id)).all()
        worker_env = {**os.environ, "ARENA_HOME": str(worker)}
        playing = [sys.executable, "-c", PLAY_ONE, str(played), url]
        done = subprocess.run(playing, env=worker_env, capture_output=True, text=True, timeout=300)
        assert done.stdout.strip() == "done", done.stdout + done.stderr

        home = caller / "home"  # the caller's data folder: it stays empty, all comes from the store
        listed = ok(arena(home, "match", "list", "1", *db))
        line = next(line for line in listed.splitlines() if line.split()[0] == str(played))
        assert line.split()[1] == "done", listed
        bots = line.split("  ")[-1].split(", ")  # in seat order
        assert sorted(bots) == ["builtin:random", "sly"], listed
        seat, other = bots.index("sly"), bots.index("builtin:random")
        shown = ok(arena(home, "match", "show", str(played), *db))
        assert shown.startswith("edible@1 match ") and "== game 0" in shown and "== game 1" in shown
        assert f"{seat}=sly (" in shown and f"{other}=builtin:random (builtin:random)" in shown
        one = ok(arena(home, "match", "show", str(played), "--game", "1", *db))
        assert "== game 0" not in one and "== game 1" in one
        refused(
            arena(home, "match", "show", str(played), "--game", "2", *db), "has 2 game(s), numbered from 0"
        )

        saved = ok(arena(home, "match", "save", str(played), *db, cwd=caller))
        file = caller / f"match-{played}-replay.json"
        assert str(file.name) in saved and file.is_file()
        refused(arena(home, "match", "save", str(played), *db, cwd=caller), "exists: give --force")
        ok(arena(home, "match", "save", str(played), str(file), "--force", *db))
        verified = ok(arena(home, "replay", "verify", str(file)))
        assert verified.startswith("OK: ") and "replays exactly (2 game(s))" in verified
        assert ok(arena(home, "replay", "show", str(file))) == shown  # one renderer for both

        log = ok(arena(home, "match", "log", str(played), "--seat", str(seat), *db, token=ada))
        assert "game 0: place" in log, log
        refused(arena(home, "match", "log", str(played), "--seat", str(seat), *db, token=bob), "owner")
        refused(arena(home, "match", "log", str(played), "--seat", str(other), *db, token=ada), "owner")
        ok(arena(home, "match", "log", str(played), "--seat", str(other), *db, token=admin))
        refused(arena(home, "match", "log", str(played), "--seat", "2", *db, token=ada), "seats 0..1, not 2")
        assert not home.exists()

        refused(arena(home, "match", "show", str(pending), *db), f"match {pending} is pending")
        refused(arena(home, "match", "log", str(pending), "--seat", "0", *db, token=admin), "once it is over")
        if kind == "sqlite":  # no token: the embedded default's local admin, made for the first folder
            ok(arena(home, "match", "log", str(played), "--seat", str(other), *db))
            taken = arena(submitter, "match", "log", str(played), "--seat", str(other), *db)
            refused(taken, "local admin was made from another data folder")
        with store.session() as session:  # a match from before blobs, whose replay file was lost
            match = session.get_one(Match, played)
            assert match.status == MatchStatus.DONE
            match.replay_blob = ""
        refused(arena(home, "match", "save", str(played), *db, cwd=caller), "the store kept no replay of it")
        store.dispose()
