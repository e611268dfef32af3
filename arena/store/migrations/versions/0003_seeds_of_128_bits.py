"""seeds of 128 bits

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TABLES = ("tournaments", "matches")


def upgrade() -> None:
    # Seeds nobody chose now have 128 bits: wider than BIGINT, so kept as decimal digits.
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column(
                "seed",
                existing_type=sa.BigInteger(),
                type_=sa.String(length=40),
                existing_nullable=False,
                postgresql_using="seed::text",
            )


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.alter_column(
                "seed",
                existing_type=sa.String(length=40),
                type_=sa.BigInteger(),
                existing_nullable=False,
                postgresql_using="seed::bigint",
            )
