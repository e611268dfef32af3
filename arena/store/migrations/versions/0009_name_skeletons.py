"""name skeletons: no look-alike user names, nor look-alike bot names in a game

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 09:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from arena.names import MAX_KEY, skeleton

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

users = sa.table("users", sa.column("id"), sa.column("name"), sa.column("name_key"))
bots = sa.table("bots", sa.column("id"), sa.column("game"), sa.column("name"), sa.column("name_key"))


def upgrade() -> None:
    # Each name's skeleton (``arena.names``), under a unique index: ``ALICE`` and a Cyrillic
    # a in ``alice`` cannot sign up next to ``alice``, nor can two requests at once take them.
    # A plain ADD COLUMN, nullable, and unique indexes: on SQLite, a batch alteration would copy the
    # tables, which the foreign keys to them forbid.
    for table in ("users", "bots"):
        op.add_column(table, sa.Column("name_key", sa.String(length=MAX_KEY), nullable=True))
    connection = op.get_bind()
    # Look-alikes stored before keep their names; the second and later of each get a key of their
    # own (their id appended), so that the index holds.
    taken: set[tuple[str, ...]] = set()
    for user_id, name in connection.execute(sa.select(users.c.id, users.c.name).order_by(users.c.id)):
        key = _free((skeleton(name),), taken, user_id)
        connection.execute(users.update().where(users.c.id == user_id).values(name_key=key))
    query = sa.select(bots.c.id, bots.c.game, bots.c.name).order_by(bots.c.id)
    for bot_id, game, name in connection.execute(query):
        key = _free((game, skeleton(name)), taken, bot_id)
        connection.execute(bots.update().where(bots.c.id == bot_id).values(name_key=key))
    op.create_index("uq_users_name_key", "users", ["name_key"], unique=True)
    op.create_index("uq_bots_game_name_key", "bots", ["game", "name_key"], unique=True)


def _free(key: tuple[str, ...], taken: set[tuple[str, ...]], row_id: int) -> str:
    if key in taken:
        key = (*key[:-1], f"{key[-1][: MAX_KEY - 12]}#{row_id}")
    taken.add(key)
    return key[-1]


def downgrade() -> None:
    op.drop_index("uq_bots_game_name_key", table_name="bots")
    op.drop_index("uq_users_name_key", table_name="users")
    for table in ("bots", "users"):
        op.drop_column(table, "name_key")
