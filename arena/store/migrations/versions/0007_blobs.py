"""blobs

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27 09:00:00
"""

from __future__ import annotations

import sys
from pathlib import Path

import sqlalchemy as sa
from alembic import op
from sqlalchemy.orm import Session

from arena.store import blobs
from arena.store.db import data_home
from arena.submissions import SubmissionError, archive, read_submission

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

matches = sa.table("matches", sa.column("id"), sa.column("replay_path"), sa.column("log_paths", sa.JSON()))
versions = sa.table("bot_versions", sa.column("id"), sa.column("spec"), sa.column("code_blob"))


def upgrade() -> None:
    # Bot code, replays and logs by content hash, and running matches' finished games, in the
    # store: hosts then share the database, and no folder.
    op.create_table(
        "blobs",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("digest"),
    )
    op.create_table(
        "live_replays",
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(length=255), nullable=False),
        sa.Column("line", sa.Integer(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["matches.id"]),
        sa.PrimaryKeyConstraint("match_id", "worker", "line"),
    )
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("code_blob", sa.String(length=64), nullable=False, server_default=""))
    _take_in_files(Session(bind=op.get_bind()), data_home())
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.alter_column(
            "replay_path",
            new_column_name="replay_blob",
            existing_type=sa.String(length=1024),
            type_=sa.String(length=64),
            existing_nullable=False,
        )
        batch_op.alter_column(
            "log_paths", new_column_name="log_blobs", existing_type=sa.JSON(), existing_nullable=False
        )


def _take_in_files(session: Session, home: Path) -> None:
    """Replays, logs and bot code that the data folder this upgrade runs beside holds, into the
    store as blobs, so that every host has them: each match's replay and logs (named by path), and
    each submitted version's artifact folder. A replay not found leaves its match without one; a
    log not found becomes a line saying where it was; code not found plays only where it is."""
    missing = 0
    recorded = session.execute(sa.select(matches).where(matches.c.replay_path != "")).all()
    for match_id, replay_path, log_paths in recorded:
        replay = _read(Path(replay_path))
        logs = [_read(Path(path)) for path in log_paths]
        missing += sum(data is None for data in [replay, *logs])
        packed = [
            blobs.pack(data if data is not None else f"(this log was at {path}: not found)\n".encode())
            for path, data in zip(log_paths, logs, strict=True)
        ]
        session.execute(
            matches.update()
            .where(matches.c.id == match_id)
            .values(
                replay_path="" if replay is None else blobs.put(session, blobs.pack(replay)),
                log_paths=[blobs.put(session, log) for log in packed],
            )
        )
    submitted = session.execute(sa.select(versions).where(versions.c.spec.startswith("artifact:"))).all()
    for version_id, spec, _ in submitted:
        try:
            files = read_submission(home / "artifacts" / spec.removeprefix("artifact:"))
        except SubmissionError:
            missing += 1
            continue
        code = blobs.put(session, blobs.pack(archive(files)))
        session.execute(versions.update().where(versions.c.id == version_id).values(code_blob=code))
    if missing:
        print(
            f"upgrade 0007: {missing} replay, log or bot code file(s) the store names are neither where "
            f"their paths say nor under {home}: their matches show no replay (a log, where it was), "
            "and such bots play only where their folder is",
            file=sys.stderr,
        )


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def downgrade() -> None:
    # The columns keep digests where paths were: older code finds no replay or log there.
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.alter_column(
            "replay_blob",
            new_column_name="replay_path",
            existing_type=sa.String(length=64),
            type_=sa.String(length=1024),
            existing_nullable=False,
        )
        batch_op.alter_column(
            "log_blobs", new_column_name="log_paths", existing_type=sa.JSON(), existing_nullable=False
        )
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_column("code_blob")
    op.drop_table("live_replays")
    op.drop_table("blobs")
