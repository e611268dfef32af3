"""The migrations build exactly the schema the models describe, step down and up again, and carry
what the store held before them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from arena.store import blobs
from arena.store.artifacts import local_artifact
from arena.store.db import Store
from arena.store.migrate import alembic_config
from arena.store.models import Base, BotVersion, Match, now
from arena.submissions import store_submission

STARTER = Path(__file__).resolve().parents[2] / "sdk" / "examples" / "edible_starter.py"


def differences(store: Store) -> list[object]:
    with store.engine.connect() as connection:
        return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


def test_migrations_match_the_models_and_downgrade_cleanly(store: Store) -> None:
    assert differences(store) == []
    store.dispose()
    config = alembic_config(store.url)
    command.downgrade(config, "0001")
    store.dispose()
    assert differences(store) != []  # 0002's tables and columns are gone
    command.upgrade(config, "head")
    store.dispose()
    assert differences(store) == []


def test_upgrading_takes_the_data_folder_s_replays_logs_and_code_into_the_store(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store from before blobs named replays and logs by path and kept code in the data folder
    only: upgrading beside that folder (``$ARENA_HOME``) puts them all in the store."""
    home = tmp_path / "old-home"
    monkeypatch.setenv("ARENA_HOME", str(home))
    artifact = store_submission(STARTER, home)
    replay, log = home / "replays" / "match-1.json", home / "replays" / "match-1-agent0.log"
    replay.parent.mkdir()
    replay.write_text('{"schema": "card-arena.replay"}')
    log.write_text("game 0: place\n")
    gone = home / "replays" / "match-1-agent1.log"
    config = alembic_config(store.url)
    store.dispose()
    command.downgrade(config, "0006")
    with store.engine.begin() as connection:
        for statement, values in [
            ("INSERT INTO bots (id, game, name, created_at) VALUES (1, 'edible', 'sly', :now)", {}),
            (
                "INSERT INTO bot_versions (id, bot_id, spec, entry, validated, validating, validation_log,"
                " created_at) VALUES (1, 1, :spec, :entry, true, false, '', :now)",
                {"spec": f"artifact:{artifact.digest}", "entry": artifact.entry},
            ),
            (
                "INSERT INTO tournaments (id, game, game_version, config, kind, games_per_match, duplicate,"
                " seed, created_at) VALUES (1, 'edible', 1, '{}', 'round_robin', 1, false, '1', :now)",
                {},
            ),
            (
                'INSERT INTO matches (id, tournament_id, "index", seed, entrants, status, attempts, worker,'
                " error, replay_path, log_paths, play_seconds, decide_seconds)"
                " VALUES (1, 1, 0, '1', '[1, 1]', 'done', 1, '', '', :replay, :logs, 0, 0)",
                {"replay": str(replay), "logs": json.dumps([str(log), str(gone)])},
            ),
        ]:
            connection.execute(text(statement), {"now": now(), **values})
    store.dispose()
    command.upgrade(config, "head")
    store.dispose()
    shutil.rmtree(home)
    with store.session() as session:
        match = session.get_one(Match, 1)
        assert blobs.get(session, match.replay_blob) == b'{"schema": "card-arena.replay"}'
        assert blobs.get(session, match.log_blobs[0]) == b"game 0: place\n"
        assert blobs.get(session, match.log_blobs[1]) == f"(this log was at {gone}: not found)\n".encode()
        code = local_artifact(session, session.get_one(BotVersion, 1), tmp_path / "new-home")
        assert (code.folder / code.entry).read_bytes() == STARTER.read_bytes()
