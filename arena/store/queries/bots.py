"""Reads of bots: a user's bots, the bots one may play, a bot's page, and the names of bot versions.

A user's bots come with their versions; a bot's page has its rating history, its matches and its
record against each other bot.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from sqlalchemy import Row, Subquery, func, select, text
from sqlalchemy.orm import Session

from arena.store.models import Bot, BotVersion, Match, MatchStatus, RatingPoint, SeatResult, Tournament, User


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


def validated_bot_names(
    session: Session,
    game: str,
    *,
    usable_by: int | None = None,
    besides: int | None = None,
    limit: int | None = None,
) -> list[str]:
    """Names of ``game``'s users' bots with a version that passed validation, by name: with
    ``usable_by``, only those of that user or open to others; ``besides``: leaving out that bot;
    ``limit``: at most that many."""
    query = (
        select(Bot.name)
        .join(BotVersion, BotVersion.bot_id == Bot.id)
        .where(Bot.game == game, BotVersion.validated, Bot.owner_id.is_not(None))
    )
    if usable_by is not None:
        query = query.where(Bot.open_to_others | (Bot.owner_id == usable_by))
    if besides is not None:
        query = query.where(Bot.id != besides)
    query = query.distinct().order_by(Bot.name)
    if limit is not None:
        query = query.limit(limit)
    return list(session.scalars(query))


def rating_history(session: Session, version_ids: list[int], limit: int) -> Sequence[RatingPoint]:
    """The newest ``limit`` rating points of these versions, newest first."""
    return session.scalars(
        select(RatingPoint)
        .where(RatingPoint.bot_version_id.in_(version_ids))
        .order_by(RatingPoint.id.desc())
        .limit(limit)
    ).all()


def _match_lines(version_ids: list[int]) -> Subquery:
    """A recorded match's line per version of ``version_ids`` that played it (its first seat's)."""
    return (
        select(func.min(SeatResult.id).label("seat_id"))
        .where(SeatResult.bot_version_id.in_(version_ids))
        .group_by(SeatResult.match_id, SeatResult.bot_version_id)
        .subquery()
    )


def match_line_count(session: Session, version_ids: list[int]) -> int:
    """How many recorded matches these versions played (a match per version, however many seats it
    held)."""
    return session.scalar(select(func.count()).select_from(_match_lines(version_ids))) or 0


def match_lines(
    session: Session, version_ids: list[int], offset: int, limit: int
) -> Sequence[Row[SeatResult, Match, str]]:
    """Those matches, newest first (``limit`` from ``offset``): the version's first seat's result,
    the match and its tournament's kind."""
    lines = _match_lines(version_ids)
    return session.execute(
        select(SeatResult, Match, Tournament.kind)
        .join(lines, SeatResult.id == lines.c.seat_id)
        .join(Match, SeatResult.match_id == Match.id)
        .join(Tournament, Match.tournament_id == Tournament.id)
        .order_by(Match.id.desc(), SeatResult.agent)
        .offset(offset)
        .limit(limit)
    ).all()


def head_to_head(session: Session, bot_id: int, most: int) -> Sequence[Row[int, int, int, int, int]]:
    """The bot's record against each other bot, game by game, from the stored outcomes of its done
    matches: per game, each bot's place is its best seat's (a kozel team's two seats share theirs),
    0 the best. The ``most`` bots it played most, most games first: the other bot's id, the games,
    and those it finished ahead, behind and level."""
    postgresql = session.get_bind().dialect.name == "postgresql"

    def elements(column: str, alias: str) -> str:
        """A JSON array column as rows (``key``: the index, ``value``), joined laterally."""
        if postgresql:
            return f"json_array_elements_text({column}) WITH ORDINALITY AS {alias}(value, key)"
        return f"json_each({column}) AS {alias}"

    query = text(
        f"""
        WITH played AS (
            SELECT DISTINCT seat.match_id FROM seat_results seat, matches m, bot_versions v
            WHERE m.id = seat.match_id AND m.status = :done AND v.id = seat.bot_version_id AND v.bot_id = :bot
        ),
        places AS (
            SELECT o.id AS outcome, v.bot_id AS bot, MIN(CAST(r.value AS INTEGER)) AS place
            FROM game_outcomes o, {elements("o.seats", "s")}, {elements("o.ranks", "r")}, bot_versions v
            WHERE o.match_id IN (SELECT match_id FROM played) AND r.key = s.key
                AND v.id = CAST(s.value AS INTEGER)
            GROUP BY o.id, v.bot_id
        )
        SELECT theirs.bot, COUNT(*) AS games,
            SUM(CASE WHEN mine.place < theirs.place THEN 1 ELSE 0 END) AS ahead,
            SUM(CASE WHEN mine.place > theirs.place THEN 1 ELSE 0 END) AS behind,
            SUM(CASE WHEN mine.place = theirs.place THEN 1 ELSE 0 END) AS tied
        FROM places mine, places theirs
        WHERE mine.bot = :bot AND theirs.outcome = mine.outcome AND theirs.bot != mine.bot
        GROUP BY theirs.bot
        ORDER BY games DESC, theirs.bot
        LIMIT :most
        """
    )
    return session.execute(query, {"bot": bot_id, "done": MatchStatus.DONE.value, "most": most}).all()


def names_and_owners(session: Session, bot_ids: list[int]) -> dict[int, tuple[str, str]]:
    """Each bot's name and its owner's (``builtin`` for none)."""
    return {
        bot: (name, owner or "builtin")
        for bot, name, owner in session.execute(
            select(Bot.id, Bot.name, User.name)
            .outerjoin(User, Bot.owner_id == User.id)
            .where(Bot.id.in_(bot_ids))
        )
    }


def bot_named(session: Session, game: str, name: str) -> Bot | None:
    return session.scalar(select(Bot).where(Bot.game == game, Bot.name == name))


def validating_versions(session: Session) -> Sequence[BotVersion]:
    """The versions whose validation has not finished."""
    return session.scalars(select(BotVersion).where(BotVersion.validating)).all()


def owners_of(session: Session, bot_ids: Collection[int]) -> dict[int, int | None]:
    """Each bot's owner's user id (None: a built-in)."""
    return dict(session.execute(select(Bot.id, Bot.owner_id).where(Bot.id.in_(bot_ids))).all())
