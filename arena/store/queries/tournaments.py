"""Reads of tournaments: their matches per status, and their standings."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store.models import Bot, BotVersion, Match, MatchStatus, SeatResult


def progress(session: Session, tournament_id: int) -> dict[str, int]:
    """Matches of the tournament per status (counted by the database: the ladder's grows for ever)."""
    counts = {str(status): 0 for status in MatchStatus}
    query = (
        select(Match.status, func.count()).where(Match.tournament_id == tournament_id).group_by(Match.status)
    )
    for status, count in session.execute(query).all():
        counts[status] = count
    return counts


def standings(session: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Per bot version: matches, games, wins, score, mean rank and fault statuses, best first.

    A version counts once per match however many seats it held: a kozel team is one bot in two
    seats that share every game's result, so one of its seats stands for it (the games the ladder
    counts), while the faults of all its seats add up."""
    rows: dict[int, dict[str, Any]] = {}
    counted: set[tuple[int, int]] = set()
    query = (
        select(SeatResult, BotVersion, Bot)
        .join(Match, SeatResult.match_id == Match.id)
        .join(BotVersion, SeatResult.bot_version_id == BotVersion.id)
        .join(Bot, BotVersion.bot_id == Bot.id)
        .where(Match.tournament_id == tournament_id, Match.status == MatchStatus.DONE)
        .order_by(SeatResult.match_id, SeatResult.agent)
    )
    for seat, version, bot in session.execute(query):
        row = rows.setdefault(
            version.id,
            {
                "bot": bot.name,
                "bot_id": bot.id,
                "version": version.id,
                "matches": 0,
                "games": 0,
                "wins": 0,
                "score": 0.0,
                "rank_sum": 0.0,
                "faults": {},
            },
        )
        for status, count in seat.statuses.items():
            if status != "ok":
                row["faults"][status] = row["faults"].get(status, 0) + count
        if (seat.match_id, version.id) in counted:  # the same team's other seat
            continue
        counted.add((seat.match_id, version.id))
        row["matches"] += 1
        row["games"] += seat.games
        row["wins"] += seat.wins
        row["score"] += seat.score
        row["rank_sum"] += seat.mean_rank * seat.games
    table = []
    for row in rows.values():
        row["mean_rank"] = row.pop("rank_sum") / row["games"] if row["games"] else 0.0
        table.append(row)
    return sorted(table, key=lambda row: (-row["score"], row["mean_rank"], row["bot"]))
