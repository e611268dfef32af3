"""What the ladder fit needs to know of the bot versions it rates, read from the store.

That is which versions are the ladder's anchors (the versions of built-in bots, which no one owns:
``arena.ratings.connect``) and which version each succeeds (its lineage: ``arena.ratings.model``,
"Versions of a bot" in docs/ratings-model.md).

A version's predecessor is the previous validated version of the same bot among those the fit rates.
Besides the versions with rated results, the fit rates each bot's current version (its newest
validated one) that has none yet but succeeds one that has: it starts from its predecessor's rating.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from sqlalchemy import Connection, Engine
from sqlalchemy.orm import Session

from arena.ratings.results import BoolArray, IntArray
from arena.store.queries.ratings import version_rows


@dataclass(frozen=True, eq=False)
class Versions:
    """Per bot index of a fit: its version id, whether it is an anchor, its predecessor's index."""

    bot_ids: IntArray
    anchors: BoolArray
    lineage: IntArray
    """The predecessor's index, always below the version's own, or -1."""


def versions(source: Engine | Connection | Session, game: str, bot_ids: Sequence[int]) -> Versions:
    """The fit's versions: ``bot_ids`` (the version ids with results, by index), then the current
    versions without results that succeed one of them (ascending); their anchors and lineage."""
    rows = version_rows(source, game)
    bot_of = {version: bot for version, bot, _, _ in rows}
    builtin = {version for version, _, _, owner in rows if owner is None}
    index = {version: place for place, version in enumerate(bot_ids)}
    newest: dict[int, int] = {}
    for version, bot, validated, _ in rows:
        if validated:
            newest[bot] = version
    rated_bots = {bot_of[version] for version in bot_ids if version in bot_of}
    ids = list(bot_ids)
    for bot, version in sorted(newest.items(), key=lambda item: item[1]):
        if version not in index and bot in rated_bots:
            index[version] = len(ids)
            ids.append(version)
    lineage = np.full(len(ids), -1, dtype=np.int64)
    last: dict[int, int] = {}
    for version, bot, validated, _ in rows:  # ascending: each version after its predecessors
        if version in index:  # (a validated version the fit does not rate is no one's predecessor)
            before = last.get(bot)
            if before is not None and index[before] < index[version]:
                lineage[index[version]] = index[before]
            if validated:
                last[bot] = version  # the predecessor of the bot's next version the fit rates
    anchors = np.array([version in builtin for version in ids], dtype=bool)
    return Versions(bot_ids=np.array(ids, dtype=np.int64), anchors=anchors, lineage=lineage)
