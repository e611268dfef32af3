"""Blobs in the store, on SQLite and PostgreSQL: by content hash, compressed, put once however often
and by however many at once, read through a copy in the reader's own data folder, and checked."""

from __future__ import annotations

import threading
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.exc import OperationalError

from arena.store import blobs
from arena.store.blobs import BlobError
from arena.store.db import Store
from arena.store.models import Blob

GAMES = (b'{"index":%d,"actions":[[0,{"type":"Place"},3]]}' % index for index in range(2000))
REPLAY_LIKE = b'{"games":[' + b",".join(GAMES) + b"]}"
UNREACHABLE = "postgresql+psycopg://nobody@127.0.0.1:9/nothing"
"""A database no one answers at (the discard port): any query there fails."""


def put(store: Store, raw: bytes) -> str:
    packed = blobs.pack(raw)
    with store.session() as session:
        return blobs.put(session, packed)


def rows(store: Store) -> int:
    with store.session() as session:
        return session.scalar(select(func.count()).select_from(Blob)) or 0


def test_bytes_come_back_as_put_compressed_in_the_store_and_put_once(store: Store) -> None:
    digest = put(store, REPLAY_LIKE)
    assert put(store, REPLAY_LIKE) == digest and rows(store) == 1
    with store.session() as session:
        assert blobs.get(session, digest) == REPLAY_LIKE
        stored = session.get_one(Blob, digest)
        assert stored.size == len(REPLAY_LIKE) and len(stored.data) < len(REPLAY_LIKE) / 10
        assert blobs.get(session, put(store, b"")) == b""


def test_two_transactions_putting_the_same_bytes_at_once_both_succeed_with_one_row(store: Store) -> None:
    """The second insert waits for the first transaction's commit, then finds the row and does nothing
    (without ON CONFLICT it failed on both databases with a UNIQUE violation)."""
    packed = blobs.pack(REPLAY_LIKE)
    first_put, committed = threading.Event(), threading.Event()
    finished: dict[str, float] = {}
    errors: list[BaseException] = []

    def first() -> None:
        with store.session() as session:
            blobs.put(session, packed)
            first_put.set()
            time.sleep(0.5)  # the second transaction meets this uncommitted row
            finished["first commits"] = time.monotonic()
        committed.set()

    def second() -> None:
        first_put.wait()
        try:
            with store.session() as session:
                blobs.put(session, packed)
            finished["second"] = time.monotonic()
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and committed.is_set()
    assert finished["second"] >= finished["first commits"]  # it did wait for the first
    assert rows(store) == 1


def test_a_copy_in_the_data_folder_answers_without_the_store(store: Store, tmp_path: Path) -> None:
    digest = put(store, REPLAY_LIKE)
    home = tmp_path / "worker-home"
    with store.session() as session:
        assert blobs.get(session, digest, home) == REPLAY_LIKE
    copy = home / "blobs" / digest
    assert copy.is_file() and len(copy.read_bytes()) < len(REPLAY_LIKE) / 10
    assert [path.name for path in copy.parent.iterdir()] == [digest]  # no temporary file left
    gone = Store(UNREACHABLE)
    try:
        with gone.session() as session:
            assert blobs.get(session, digest, home) == REPLAY_LIKE
            with pytest.raises(OperationalError):  # the store itself is out of reach
                blobs.get(session, blobs.pack(b"not copied").digest, home)
    finally:
        gone.dispose()


def test_a_damaged_copy_is_fetched_again_from_the_store(store: Store, tmp_path: Path) -> None:
    digest = put(store, REPLAY_LIKE)
    copy = tmp_path / "blobs" / digest
    copy.parent.mkdir()
    copy.write_bytes(zlib.compress(b"something else"))
    with store.session() as session:
        assert blobs.get(session, digest, tmp_path) == REPLAY_LIKE
    assert zlib.decompress(copy.read_bytes()) == REPLAY_LIKE


def test_missing_damaged_and_oversized_blobs_are_refused_by_name(store: Store, tmp_path: Path) -> None:
    digest = put(store, REPLAY_LIKE)
    absent = blobs.pack(b"never put").digest
    with store.session() as session:
        with pytest.raises(BlobError, match=f"blob {absent} is not in the store"):
            blobs.get(session, absent, tmp_path)
        with pytest.raises(BlobError, match="does not name a blob"):
            blobs.get(session, "../../etc/passwd", tmp_path)
    damages: list[tuple[dict[str, Any], str]] = [
        ({"data": b"not zlib at all"}, "is damaged: Error -3"),
        ({"data": zlib.compress(REPLAY_LIKE)[:-20]}, "is damaged: its compressed bytes end early"),
        ({"data": zlib.compress(REPLAY_LIKE + b" ")}, "is damaged: its bytes do not match their digest"),
        ({"size": blobs.MAX_BYTES + 1}, "is over the 268435456-byte limit"),
    ]
    for change, message in damages:
        with store.session() as session:
            session.execute(update(Blob).where(Blob.digest == digest).values(change))
        with store.session() as session, pytest.raises(BlobError, match=f"blob {digest} {message}"):
            blobs.get(session, digest, tmp_path)
    assert not (tmp_path / "blobs").exists()  # nothing damaged was kept


def test_a_blob_that_inflates_past_the_limit_is_refused_without_inflating_the_rest(store: Store) -> None:
    """A row whose size says little but whose data inflates without end (a zip bomb in the store)."""
    deflate = zlib.compressobj(1)
    chunk = bytes(1 << 20)
    bomb = b"".join(deflate.compress(chunk) for _ in range(blobs.MAX_BYTES // len(chunk) + 2))
    bomb += deflate.flush()
    digest = put(store, b"small")
    with store.session() as session:
        session.execute(update(Blob).where(Blob.digest == digest).values(data=bomb))
    with store.session() as session, pytest.raises(BlobError, match="over the 268435456-byte limit"):
        blobs.get(session, digest)
    with pytest.raises(BlobError, match="over the 268435456-byte limit of a blob"):
        blobs.pack(bytes(blobs.MAX_BYTES + 1))
