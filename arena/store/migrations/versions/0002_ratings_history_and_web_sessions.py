"""ratings, history and web sessions

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 03:59:07.004119
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "ladders",
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("fitted_at", sa.DateTime(), nullable=True),
        sa.Column("fit_games", sa.Integer(), nullable=False),
        sa.Column("fit_seconds", sa.Double(), nullable=False),
        sa.PrimaryKeyConstraint("game"),
    )
    op.create_table(
        "web_sessions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key_hash"),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=True),
        sa.Column("elo", sa.Double(), nullable=False),
        sa.Column("halfwidth", sa.Double(), nullable=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
        ),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["matches.id"],
        ),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.create_index("ix_rating_history_bot", ["bot_version_id", "id"], unique=False)

    op.create_table(
        "ratings",
        sa.Column("bot_version_id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("live_elo", sa.Double(), nullable=False),
        sa.Column("live_games", sa.Integer(), nullable=False),
        sa.Column("elo", sa.Double(), nullable=True),
        sa.Column("halfwidth", sa.Double(), nullable=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("rank", sa.Integer(), nullable=True),
        sa.Column("superiority", sa.Double(), nullable=True),
        sa.Column("provisional", sa.Boolean(), nullable=False),
        sa.Column("fitted_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["bot_version_id"],
            ["bot_versions.id"],
        ),
        sa.PrimaryKeyConstraint("bot_version_id"),
    )
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.create_index("ix_ratings_game", ["game"], unique=False)

    with op.batch_alter_table("seat_results", schema=None) as batch_op:
        batch_op.create_index("ix_seat_results_version", ["bot_version_id"], unique=False)

    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("password_hash", sa.String(length=255), nullable=False, server_default="")
        )


def downgrade() -> None:
    with op.batch_alter_table("seat_results", schema=None) as batch_op:
        batch_op.drop_index("ix_seat_results_version")

    with op.batch_alter_table("users", schema=None) as batch_op:
        batch_op.drop_column("password_hash")

    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_ratings_game")

    op.drop_table("ratings")
    with op.batch_alter_table("rating_history", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_history_bot")

    op.drop_table("rating_history")
    op.drop_table("web_sessions")
    op.drop_table("ladders")
