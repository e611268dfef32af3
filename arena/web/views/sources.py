"""A submitted version's files, for its owner (and admins)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel
from sqlalchemy.orm import Session

from arena.store.artifacts import local_artifact
from arena.store.blobs import BlobError
from arena.store.models import BotVersion, User
from arena.web.views.common import Forbidden, NotFound, can_see_private


class SourceFile(BaseModel):
    name: str
    size: int
    text: str | None
    """The content if it is UTF-8 text, else None."""


class Source(BaseModel):
    version_id: int
    entry: str
    files: list[SourceFile]


def source(session: Session, version_id: int, viewer: User | None, home: Path) -> Source:
    version = session.get(BotVersion, version_id)
    if version is None:
        raise NotFound(f"no bot version {version_id}")
    if not can_see_private(viewer, version.bot):
        raise Forbidden("only the bot's owner may read its source")
    if not version.spec.startswith("artifact:"):
        raise NotFound(f"version {version_id} is a built-in bot: its source is in the arena package")
    try:
        folder = local_artifact(session, version, home).folder
    except BlobError as error:
        raise NotFound(str(error)) from None
    files = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        try:
            text: str | None = data.decode()
        except UnicodeDecodeError:
            text = None
        files.append(SourceFile(name=path.relative_to(folder).as_posix(), size=len(data), text=text))
    return Source(version_id=version.id, entry=version.entry, files=files)
