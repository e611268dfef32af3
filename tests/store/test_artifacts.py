"""Submitted code on any host: registered once as a blob, made into a folder wherever a data folder
lacks it (once, however many processes of the host ask at once), on SQLite and PostgreSQL."""

from __future__ import annotations

import shutil
import stat
import threading
from pathlib import Path

import pytest
from sqlalchemy import update

from arena.store.artifacts import local_artifact
from arena.store.blobs import BlobError
from arena.store.db import Store
from arena.store.models import BotVersion, User
from arena.store.repo import create_user
from arena.submissions import Artifact
from arena.tournament.service import register

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "sdk" / "examples" / "edible_starter.py"


def owner(store: Store) -> User:
    with store.session() as session:
        return create_user(session, "ada")[0]


def fetch(store: Store, version_id: int, home: Path) -> Artifact:
    with store.session() as session:
        return local_artifact(session, session.get_one(BotVersion, version_id), home)


def test_a_data_folder_without_the_code_makes_it_from_the_store(store: Store, tmp_path: Path) -> None:
    registered = register(store, tmp_path / "web", owner(store), "edible", "sly", STARTER, None)
    worker = tmp_path / "worker"
    artifacts: list[Artifact | None] = [None] * 4
    ready = threading.Barrier(len(artifacts))

    def fetch_at_once(index: int) -> None:
        ready.wait()
        artifacts[index] = fetch(store, registered.version_id, worker)

    threads = [threading.Thread(target=fetch_at_once, args=(index,)) for index in range(len(artifacts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    made = artifacts[0]
    assert made is not None and all(artifact == made for artifact in artifacts)
    assert made.folder == worker / "artifacts" / registered.artifact.digest
    assert (made.folder / made.entry).read_bytes() == STARTER.read_bytes()
    assert stat.S_IMODE(made.folder.stat().st_mode) == 0o555
    assert stat.S_IMODE((made.folder / made.entry).stat().st_mode) == 0o444
    assert [path.name for path in (worker / "artifacts").iterdir()] == [made.digest]  # no half-made one


def test_code_stored_before_blobs_plays_where_its_folder_is_and_is_stored_when_sent_again(
    store: Store, tmp_path: Path
) -> None:
    registered = register(store, tmp_path / "old", owner(store), "edible", "sly", STARTER, None)
    with store.session() as session:  # as a version submitted before code went into the store
        session.execute(update(BotVersion).values(code_blob=""))
    assert fetch(store, registered.version_id, tmp_path / "old").folder.is_dir()
    with pytest.raises(BlobError, match=r"before code went into the database.*submitting the same code"):
        fetch(store, registered.version_id, tmp_path / "new")
    with store.session() as session:
        again = register(store, tmp_path / "web", session.get_one(User, 1), "edible", "sly", STARTER, None)
    assert again.version_id == registered.version_id
    assert fetch(store, registered.version_id, tmp_path / "new").folder.is_dir()


def test_stored_code_that_is_not_the_version_s_own_is_refused(store: Store, tmp_path: Path) -> None:
    sly = register(store, tmp_path / "web", owner(store), "edible", "sly", STARTER, None)
    other = tmp_path / "other.py"
    shutil.copy(STARTER, other)
    with other.open("a") as out:
        out.write("# another bot\n")
    with store.session() as session:
        user = session.get_one(User, 1)
    fox = register(store, tmp_path / "web", user, "edible", "fox", other, None)
    with store.session() as session:
        fox_code = session.get_one(BotVersion, fox.version_id).code_blob
        session.execute(update(BotVersion).where(BotVersion.id == sly.version_id).values(code_blob=fox_code))
    with pytest.raises(BlobError, match=f"bot version {sly.version_id}: its stored code is not artifact:"):
        fetch(store, sly.version_id, tmp_path / "worker")
    with store.session() as session:
        session.execute(update(BotVersion).values(code_blob="0" * 64))
    with pytest.raises(BlobError, match=rf"bot version {sly.version_id}: .* is not in the store"):
        fetch(store, sly.version_id, tmp_path / "worker")
