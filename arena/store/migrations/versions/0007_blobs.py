"""blobs

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Bot code, replays and logs by content hash, so that hosts share the database and no folder.
    op.create_table(
        "blobs",
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("digest"),
    )
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("code_blob", sa.String(length=64), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_column("code_blob")
    op.drop_table("blobs")
