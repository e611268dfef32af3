"""rated play: which tournaments feed the ladder of record, and the ladder's consistency flags

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

tournaments = sa.table("tournaments", sa.column("kind"), sa.column("rated"))


def upgrade() -> None:
    # Only rated tournaments feed the ladder of record (``arena.ratings.rated``): the living ladder's
    # standing tournaments, and those an admin marks rated. Whether a seed was chosen by someone is
    # kept, since a chosen seed can never be rated. Plain ADD COLUMNs: on SQLite a batch alteration
    # would copy the tables, which the foreign keys to them forbid.
    for column in ("rated", "seed_chosen"):
        op.add_column(
            "tournaments", sa.Column(column, sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.execute(tournaments.update().where(tournaments.c.kind == "ladder").values(rated=True))
    # A bot whose results depart from its rating (against one opponent, or over time) is flagged.
    op.add_column("ratings", sa.Column("flag", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("ratings", "flag")
    for column in ("seed_chosen", "rated"):
        op.drop_column("tournaments", column)
