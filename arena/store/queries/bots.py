"""Reads of bots: a user's bots with their versions, and the names of bot versions."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Row, func, select
from sqlalchemy.orm import Session

from arena.store.models import Bot, BotVersion


def owned_bot_counts(session: Session, owner_id: int) -> Sequence[Row[int, str, str, int]]:
    """The bots of user ``owner_id`` by game and name: id, game, name and how many versions each has
    (those without a version left out)."""
    return session.execute(
        select(Bot.id, Bot.game, Bot.name, func.count(BotVersion.id))
        .join(BotVersion, BotVersion.bot_id == Bot.id)
        .where(Bot.owner_id == owner_id)
        .group_by(Bot.id)
        .order_by(Bot.game, Bot.name)
    ).all()


def owned_bots(session: Session, owner_id: int) -> Sequence[Bot]:
    """The bots of user ``owner_id``, by game and name."""
    return session.scalars(select(Bot).where(Bot.owner_id == owner_id).order_by(Bot.game, Bot.name)).all()


def versions_newest_first(session: Session, bot_id: int) -> Sequence[BotVersion]:
    return session.scalars(
        select(BotVersion).where(BotVersion.bot_id == bot_id).order_by(BotVersion.id.desc())
    ).all()


def version_names(session: Session, version_ids: set[int]) -> dict[int, str]:
    """The bot name of each of these versions."""
    if not version_ids:
        return {}
    query = select(BotVersion.id, Bot.name).join(Bot).where(BotVersion.id.in_(version_ids))
    return {version_id: name for version_id, name in session.execute(query)}
