"""Blobs: bytes kept in the store by content hash, so that every host reads them from the database.

Bot code, replays and logs reach every host of a fleet through the database each process already
uses, and no folder needs sharing.

A blob is named by the SHA-256 of its bytes and kept zlib-compressed (a replay shrinks about
ninefold). Putting one is idempotent, also when two processes put the same bytes at once: the
insert does nothing where the row is already there (on SQLite and PostgreSQL alike), so a blob can
share the transaction of the row that names it. Reading checks the bytes against their name, and
keeps a copy in the reader's own data folder (``home/blobs/DIGEST``): a digest names one content
forever, so a copy never goes stale; it is written to a temporary file and renamed into place, so
no reader ever sees half of one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.store.db import insert_new
from arena.store.models import Blob

MAX_BYTES = 256 * 1024 * 1024
"""The largest blob, uncompressed: what reading one may take into memory, whatever the store holds.
A bot's code is at most 16 MiB, a 50-game kozel replay (the largest game) about 0.5 MiB, so a
1,000-game one (the most the web app allows) some 10 MiB; a PostgreSQL value holds up to 1 GiB."""

_DIGEST = re.compile(r"[0-9a-f]{64}")


class BlobError(Exception):
    """A blob that is missing, damaged or too large; the message names it."""


@dataclass(frozen=True)
class Packed:
    """Bytes ready to put: made before the transaction that puts them, which then stays short."""

    digest: str
    size: int
    """Uncompressed bytes."""
    data: bytes
    """Compressed."""


def pack(raw: bytes) -> Packed:
    if len(raw) > MAX_BYTES:
        raise BlobError(f"{len(raw)} bytes: over the {MAX_BYTES}-byte limit of a blob")
    return Packed(hashlib.sha256(raw).hexdigest(), len(raw), zlib.compress(raw))


def put(session: Session, packed: Packed) -> str:
    """Keep ``packed`` in the store (nothing changes if it is there already); returns its digest."""
    insert_new(session, Blob, [{"digest": packed.digest, "size": packed.size, "data": packed.data}], "digest")
    return packed.digest


def get(session: Session, digest: str, home: Path | None = None) -> bytes:
    """The bytes named ``digest``: this process's copy under ``home`` when it has one (the store is
    not asked), else the store's (a copy is then kept under ``home``; ``None`` keeps none)."""
    if not _DIGEST.fullmatch(digest):
        raise BlobError(f"{digest!r} does not name a blob (a SHA-256 in hex)")
    copy = None if home is None else home / "blobs" / digest
    if copy is not None:
        with contextlib.suppress(OSError, BlobError):  # none yet, or damaged: the store has it
            return _unpacked(digest, copy.read_bytes())
    row = session.execute(select(Blob.size, Blob.data).where(Blob.digest == digest)).one_or_none()
    if row is None:
        raise BlobError(f"blob {digest} is not in the store")
    if row.size > MAX_BYTES:
        raise BlobError(f"blob {digest} is over the {MAX_BYTES}-byte limit of a blob ({row.size} bytes)")
    raw = _unpacked(digest, row.data)
    if copy is not None:
        _keep(copy, row.data)
    return raw


def _unpacked(digest: str, data: bytes) -> bytes:
    """The bytes that ``data`` compresses, checked against their name; never more than ``MAX_BYTES``
    of them, whatever ``data`` claims."""
    inflate = zlib.decompressobj()
    try:
        raw = inflate.decompress(data, MAX_BYTES + 1)
    except zlib.error as error:
        raise BlobError(f"blob {digest} is damaged: {error}") from None
    if len(raw) > MAX_BYTES:
        raise BlobError(f"blob {digest} is over the {MAX_BYTES}-byte limit of a blob")
    if not inflate.eof:
        raise BlobError(f"blob {digest} is damaged: its compressed bytes end early")
    if hashlib.sha256(raw).hexdigest() != digest:
        raise BlobError(f"blob {digest} is damaged: its bytes do not match their digest")
    return raw


def _keep(copy: Path, data: bytes) -> None:
    """Write the copy whole or not at all; a copy that cannot be written is only not kept."""
    try:
        copy.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=copy.parent, prefix=f".{copy.name}-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, copy)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
