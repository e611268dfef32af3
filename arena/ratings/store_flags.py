"""Consistency flags in the store: each full refit writes every fitted bot's flag (``ratings.flag``).

A flag is the text of ``arena.ratings.consistency``'s finding with the opponent named, or "" for none.
Only a full refit writes them (``arena.ratings.ladder.record_fit``): an incremental step keeps the
last refit's, as the tests need the games in the order played, all of them.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from arena.ratings.consistency import Flag
from arena.ratings.model import Ladder
from arena.store.queries.bots import version_names
from arena.store.repo.ratings import set_flags


def write_flags(session: Session, ladder: Ladder, found: list[Flag | None]) -> int:
    """Write the flags of a full fit (``ladder``, and ``found``: its bots' ``arena.ratings.consistency``
    flags) to its bots' ``ratings`` rows (which ``write_ladder`` made); returns how many bots are
    flagged."""
    assert ladder.bot_ids is not None
    ids = ladder.bot_ids.tolist()
    named = {ids[flag.opponent] for flag in found if flag is not None and flag.opponent is not None}
    names = version_names(session, named)

    def name(bot: int) -> str:
        return f"{names.get(ids[bot], 'a removed bot')} v{ids[bot]}"

    text = {ids[bot]: flag.text(name) for bot, flag in enumerate(found) if flag is not None}
    set_flags(session, ids, text)
    return len(text)
