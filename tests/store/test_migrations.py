"""The migrations build exactly the schema the models describe, and step down and up again."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from arena.store.db import Store
from arena.store.migrate import alembic_config
from arena.store.models import Base


def differences(store: Store) -> list[object]:
    with store.engine.connect() as connection:
        return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))


def test_migrations_match_the_models_and_downgrade_cleanly(store: Store) -> None:
    assert differences(store) == []
    store.dispose()
    config = alembic_config(store.url)
    command.downgrade(config, "0001")
    store.dispose()
    assert differences(store) != []  # 0002's tables and columns are gone
    command.upgrade(config, "head")
    store.dispose()
    assert differences(store) == []
