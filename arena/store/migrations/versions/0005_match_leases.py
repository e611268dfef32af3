"""match leases

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # A running match belongs to its worker only while the worker renews this lease.
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.add_column(sa.Column("lease_until", sa.DateTime(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("matches", schema=None) as batch_op:
        batch_op.drop_column("lease_until")
