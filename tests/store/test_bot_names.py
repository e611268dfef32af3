"""A bot's name stored by two transactions at once: the second finds the first's bot, and a name
too like another's is still refused."""

from __future__ import annotations

import pytest

import arena.store.repo.bots
from arena.names import skeleton
from arena.store.db import Store
from arena.store.errors import StoreError
from arena.store.repo import bot_version


@pytest.mark.parametrize("store", ["postgresql"], indirect=True)  # SQLite writes one at a time
def test_a_name_stored_meanwhile_is_the_same_bot(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race of 16 tournaments created at once with the same built-in: this transaction has looked
    for the bot by name and found none when another stores it and commits; its next look, for a
    name alike, finds that bot, which is the one it wanted (it said "too like the bot" before)."""
    concurrent: list[int] = []

    def skeleton_after_a_concurrent_commit(name: str) -> str:
        with monkeypatch.context() as unpatched, store.session() as other:
            unpatched.setattr(arena.store.repo.bots, "skeleton", skeleton)
            concurrent.append(bot_version(other, "edible", name, name, None).bot_id)
        return skeleton(name)

    monkeypatch.setattr(arena.store.repo.bots, "skeleton", skeleton_after_a_concurrent_commit)
    with store.session() as session:
        version = bot_version(session, "edible", "builtin:random", "builtin:random", None)
    assert concurrent and version.bot_id == concurrent[0]


def test_a_name_too_like_another_is_refused(store: Store) -> None:
    with store.session() as session:
        bot_version(session, "edible", "Alice", "a" * 64, None)
    with store.session() as session, pytest.raises(StoreError, match="too like the bot 'Alice'"):
        bot_version(session, "edible", "alice", "b" * 64, None)
