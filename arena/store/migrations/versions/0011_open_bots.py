"""open bots: a bot's owner says whether others may challenge and play it

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-03 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

bots = sa.table("bots", sa.column("owner_id"), sa.column("open_to_others"))


def upgrade() -> None:
    # Others may challenge a bot, or seat it against themselves, only if it is open: the built-ins
    # are, a user's bot is not until its owner opens it (``arena.tournament.challenges``). A plain
    # ADD COLUMN: on SQLite a batch alteration would copy the table, which the foreign keys forbid.
    op.add_column(
        "bots", sa.Column("open_to_others", sa.Boolean(), nullable=False, server_default=sa.false())
    )
    op.execute(bots.update().where(bots.c.owner_id.is_(None)).values(open_to_others=True))


def downgrade() -> None:
    op.drop_column("bots", "open_to_others")
