"""validation in the background

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-25 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A web submission answers at once and is validated afterwards: this marks the versions still waiting.
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("validating", sa.Boolean(), nullable=False, server_default=sa.false()))


def downgrade() -> None:
    with op.batch_alter_table("bot_versions", schema=None) as batch_op:
        batch_op.drop_column("validating")
