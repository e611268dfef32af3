"""the living ladder: connectivity on the ratings, matches found by when they finished, the queue

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Bots with no chain of games to the main pool are shown apart (the next fit says which).
    with op.batch_alter_table("ratings") as table:
        table.add_column(sa.Column("connected", sa.Boolean(), nullable=False, server_default=sa.true()))
    # The ladder of record follows the matches that land: it looks them up by when they finished.
    op.create_index("ix_matches_finished", "matches", ["finished_at"])
    # The scheduler publishes the order in which the ladder's bots will next be picked.
    with op.batch_alter_table("ladders") as table:
        table.add_column(sa.Column("queue", sa.JSON(), nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("ladders") as table:
        table.drop_column("queue")
    op.drop_index("ix_matches_finished", table_name="matches")
    with op.batch_alter_table("ratings") as table:
        table.drop_column("connected")
