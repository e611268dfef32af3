"""ab tests: sequential A/B tests of two bot versions, their parameters and verdict

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-29 09:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ab_tests",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.Integer(), nullable=False),
        sa.Column("new_version_id", sa.Integer(), nullable=False),
        sa.Column("old_version_id", sa.Integer(), nullable=False),
        sa.Column("elo0", sa.Double(), nullable=False),
        sa.Column("elo1", sa.Double(), nullable=False),
        sa.Column("alpha", sa.Double(), nullable=False),
        sa.Column("beta", sa.Double(), nullable=False),
        sa.Column("max_games", sa.Integer(), nullable=False),
        sa.Column("panel", sa.JSON(), nullable=False),
        sa.Column("verdict", sa.String(length=32), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(["tournament_id"], ["tournaments.id"]),
        sa.ForeignKeyConstraint(["new_version_id"], ["bot_versions.id"]),
        sa.ForeignKeyConstraint(["old_version_id"], ["bot_versions.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tournament_id"),
    )


def downgrade() -> None:
    op.drop_table("ab_tests")
