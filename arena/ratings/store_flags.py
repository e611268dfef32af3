"""Consistency flags in the store: each full refit writes every fitted bot's flag (``ratings.flag``),
the text of ``arena.ratings.consistency``'s finding with the opponent named, or "" for none.

Only a full refit writes them (``arena.ratings.ladder.record_fit``): an incremental step keeps the
last refit's, as the tests need the games in the order played, all of them.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ratings.consistency import Flag
from arena.ratings.model import Ladder
from arena.store.models import Bot, BotVersion, Rating


def write_flags(session: Session, ladder: Ladder, found: list[Flag | None]) -> int:
    """Write the flags of a full fit (``ladder``, and ``found``: its bots' ``arena.ratings.consistency``
    flags) to its bots' ``ratings`` rows (which ``write_ladder`` made); returns how many bots are
    flagged."""
    assert ladder.bot_ids is not None
    ids = ladder.bot_ids.tolist()
    named = {ids[flag.opponent] for flag in found if flag is not None and flag.opponent is not None}
    names = dict(
        session.execute(
            select(BotVersion.id, Bot.name)
            .join(Bot, BotVersion.bot_id == Bot.id)
            .where(BotVersion.id.in_(named))
        ).all()
    )

    def name(bot: int) -> str:
        return f"{names.get(ids[bot], 'a removed bot')} v{ids[bot]}"

    rows = session.scalars(select(Rating).where(Rating.bot_version_id.in_(ids)))
    text = {ids[bot]: flag.text(name) for bot, flag in enumerate(found) if flag is not None}
    for row in rows:
        row.flag = text.get(row.bot_version_id, "")
    return len(text)
