"""A fleet shares the database and no folder: a bot submitted from one data folder is played by a
worker with another, empty one, and the web app, with a third, shows the match's replay and logs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fleet import PLAY_ONE, database
from served import STARTER, Client, start_server
from sqlalchemy import select

from arena.store.db import Store
from arena.store.models import Match
from arena.store.repo import create_user

ARENA = str(Path(sys.executable).with_name("arena"))


def files_under(folder: Path) -> list[str]:
    return sorted(path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file())


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_worker_and_the_web_app_need_only_the_database_and_their_own_empty_folders(
    kind: str, tmp_path: Path
) -> None:
    submitter, worker, web = (tmp_path / name for name in ("submitter", "worker", "web"))
    for home in (submitter, worker, web):
        home.mkdir()
    with database(kind, tmp_path) as url:

        def run(home: Path, *command: str, token: str = "") -> str:
            env = {**os.environ, "ARENA_HOME": str(home), "ARENA_DATABASE_URL": url, "ARENA_API_TOKEN": token}
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, done.stdout + done.stderr
            return done.stdout

        store = Store(url)
        store.upgrade()
        with store.session() as session:
            owner = create_user(session, "ada")[1]
        bot = ["--name", "sly", "--game", "edible"]
        assert "passed validation" in run(submitter, ARENA, "bot", "submit", str(STARTER), *bot, token=owner)
        field = ["--bots", "sly", "builtin:random", "--games-per-match", "4"]
        run(submitter, ARENA, "tournament", "create", "--game", "edible", *field, token=owner)
        shutil.rmtree(submitter)  # nothing of the submitter's folder reaches the others
        with store.session() as session:
            match_id = session.scalars(select(Match.id)).one()

        assert run(worker, sys.executable, "-c", PLAY_ONE, str(match_id), url).strip() == "done"
        code = files_under(worker)  # the bot's code, fetched from the store: nothing else
        assert len(code) == 1 and code[0].startswith("artifacts/") and code[0].endswith("/edible_starter.py")

        process, base = start_server(web, {"ARENA_DATABASE_URL": url})
        try:
            page = Client(base, owner).get(f"/api/v1/matches/{match_id}").json()
            assert page["status"] == "done" and page["replay_available"] and len(page["games"]) == 4
            sly = next(seat for seat in page["seats"] if seat["bot"] == "sly")
            assert sly["log_visible"]
            assert Client(base).get(f"/matches/{match_id}").status == 200
            replay = Client(base).get(f"/api/v1/matches/{match_id}/replay/3").json()
            assert replay["reveal"] and replay["steps"][0]["number"] == -1 and len(replay["steps"]) > 1
            log = Client(base, owner).get(f"/matches/{match_id}/logs/{sly['agent']}")
            assert log.status == 200 and "game 0: place" in log.text, log.text
            assert Client(base).get(f"/matches/{match_id}/logs/{sly['agent']}").status == 403
            source = Client(base, owner).get(f"/api/v1/versions/{sly['version_id']}/source").json()
            assert [file["name"] for file in source["files"]] == ["edible_starter.py"]
        finally:
            process.terminate()
            process.wait(timeout=20)
        with store.session() as session:
            replay_blob = session.get_one(Match, match_id).replay_blob
        store.dispose()
    # Copies of what it showed (a log is read afresh each time), besides its log and, on the
    # embedded default, its local admin's token.
    kept = set(files_under(web)) - {"serve.log", "api-token"}
    assert kept == {code[0], f"blobs/{replay_blob}"}
