"""A bot's page: its versions, its place on the ladder, and its matches.

It shows the versions and their validation, the bot's place on the ladder, rating history, record
against each other bot, its matches, and for its owner its place in the ladder's queue.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel
from sqlalchemy.orm import Session

from arena.ladder.standing import KIND as LADDER
from arena.store.models import Bot, BotVersion, User
from arena.store.queries import bots as queries
from arena.store.queries.ladder import ladder_state
from arena.text import escape_controls
from arena.web.views.challenges import ChallengeLine, bot_challenges
from arena.web.views.common import NotFound, Timestamp, can_see_private, page_count
from arena.web.views.ladder import Ladder, LadderEntry, ladder
from arena.web.views.matches import MatchLine

Validation = Literal["validating", "passed", "failed"]


def validation(version: BotVersion) -> Validation:
    """Where a version's validation stands: only a version that ``passed`` may play."""
    if version.validating:
        return "validating"
    return "passed" if version.validated else "failed"


class VersionInfo(BaseModel):
    id: int
    spec: str
    entry: str
    validation: Validation
    created_at: Timestamp
    rating: LadderEntry | None
    validation_log: str | None
    """The validation match's log: owner only."""


class HistoryPoint(BaseModel):
    version_id: int
    kind: str
    """``live`` (after a landing match) or ``fit`` (a refit, with its 95% half-width)."""
    elo: float
    halfwidth: float | None
    games: int
    match_id: int | None
    at: Timestamp


class HeadToHead(BaseModel):
    """A bot's record against one other bot (any of their versions), game by game."""

    bot_id: int
    bot: str
    owner: str
    games: int
    """Games both played (a bot in two seats of a game, a kozel team, counts once)."""
    ahead: int
    """Games this bot finished ahead of the other."""
    behind: int
    tied: int
    """Games they finished level (partners in a team game always do)."""


class BotPage(BaseModel):
    id: int
    name: str
    game: str
    owner: str
    created_at: Timestamp
    is_private_visible: bool
    open_to_others: bool
    """Others may challenge it and seat it against themselves (its owner's switch; built-ins are)."""
    versions: list[VersionInfo]
    ladder: LadderEntry | None
    """Its place on the ladder (its newest validated version's), None before it has a ladder rating."""
    history: list[HistoryPoint]
    head_to_head: list[HeadToHead]
    """Against each other bot it played, most games first (the ``HEAD_TO_HEAD`` most played)."""
    matches: list[MatchLine]
    """Its recorded matches, newest first: page ``page`` of ``pages`` (``MATCHES_PAGE`` a page), a
    line per match and version (one for a kozel team's two seats)."""
    match_count: int
    page: int
    pages: int
    queue: QueuePlace | None
    """Owner only: where its ladder version stands in the order of the scheduler's next picks."""
    challenges: list[ChallengeLine]
    """Its newest challenges, either side, newest first (unrated matches asked for by a user)."""


class QueuePlace(BaseModel):
    """Where a bot stands in the living ladder's queue: ``position`` 1 is picked next (for a match
    of its own; it may meet others sooner, as their opponent)."""

    position: int
    of: int


def queue_place(session: Session, game: str, version_ids: list[int]) -> QueuePlace | None:
    """The place of the first of ``version_ids`` (a bot's versions) in the queue the scheduler last
    published for ``game`` (``LadderState.queue``); None when none of them is in it."""
    state = ladder_state(session, game)
    queue = state.queue if state is not None else []
    wanted = set(version_ids)
    for position, version_id in enumerate(queue, 1):
        if version_id in wanted:
            return QueuePlace(position=position, of=len(queue))
    return None


HISTORY_LIMIT = 2000
MATCHES_PAGE = 30
"""A bot's matches per page."""
HEAD_TO_HEAD = 50
"""The most bots a bot page gives a head-to-head record against."""


def bot_page(
    session: Session,
    bot_id: int,
    viewer: User | None,
    ladder_of: Callable[[str], Ladder] | None = None,
    page: int = 1,
) -> BotPage:
    """``ladder_of(game)``: the game's ladder (a cached one, say); default: read it now. ``page``:
    which page of its matches (1 the newest); past the last one is not found."""
    bot = session.get(Bot, bot_id)
    if bot is None:
        raise NotFound(f"no bot {bot_id}")
    private = can_see_private(viewer, bot)
    version_ids = [version.id for version in bot.versions]
    board = ladder_of(bot.game) if ladder_of is not None else ladder(session, bot.game)
    mine = bot.id  # read once: an ORM attribute read costs 0.3 µs, and the ladder may be long
    rows = {row.version_id: row for row in board.entries if row.bot_id == mine}
    versions = [
        VersionInfo(
            id=version.id,
            spec=version.spec,
            entry=version.entry,
            validation=validation(version),
            created_at=version.created_at,
            rating=rows.get(version.id),
            validation_log=escape_controls(version.validation_log or "") if private else None,
        )
        for version in bot.versions
    ]
    points = queries.rating_history(session, version_ids, HISTORY_LIMIT)
    history = [
        HistoryPoint(
            version_id=point.bot_version_id,
            kind=point.kind,
            elo=round(point.elo, 1),
            halfwidth=None if point.halfwidth is None else round(point.halfwidth, 1),
            games=point.games,
            match_id=point.match_id,
            at=point.at,
        )
        for point in reversed(points)
    ]
    count, matches = bot_matches(session, bot, version_ids, page)
    return BotPage(
        id=bot.id,
        name=bot.name,
        game=bot.game,
        owner=bot.owner.name if bot.owner else "builtin",
        created_at=bot.created_at,
        is_private_visible=private,
        open_to_others=bot.open_to_others,
        versions=versions,
        ladder=next(iter(rows.values()), None),
        history=history,
        head_to_head=head_to_head(session, bot.id),
        matches=matches,
        match_count=count,
        page=page,
        pages=page_count(count, MATCHES_PAGE),
        queue=queue_place(session, bot.game, version_ids) if private else None,
        challenges=bot_challenges(session, bot, version_ids),
    )


def bot_matches(session: Session, bot: Bot, version_ids: list[int], page: int) -> tuple[int, list[MatchLine]]:
    """How many recorded matches the bot's versions played (a match per version, however many seats
    it held), and page ``page`` of them, newest first."""
    count = queries.match_line_count(session, version_ids)
    pages = page_count(count, MATCHES_PAGE)
    if page > pages:
        raise NotFound(
            f"{bot.name} has {count} matches on {pages} page(s) of {MATCHES_PAGE}, not page {page}"
        )
    seats = queries.match_lines(session, version_ids, (page - 1) * MATCHES_PAGE, MATCHES_PAGE)
    names = queries.version_names(session, {entrant for _, match, _ in seats for entrant in match.entrants})
    return count, [
        MatchLine(
            id=match.id,
            tournament_id=match.tournament_id,
            ladder=kind == LADDER,
            agent=seat.agent,
            status=match.status,
            finished_at=match.finished_at,
            opponents=list(
                dict.fromkeys(names[entrant] for entrant in match.entrants if entrant != seat.bot_version_id)
            ),
            games=seat.games,
            wins=seat.wins,
            score=seat.score,
        )
        for seat, match, kind in seats
    ]


def head_to_head(session: Session, bot_id: int) -> list[HeadToHead]:
    """The bot's record against each other bot, game by game, from the stored outcomes of its done
    matches: per game, each bot's place is its best seat's (a kozel team's two seats share theirs),
    0 the best. The ``HEAD_TO_HEAD`` bots it played most, most games first."""
    records = queries.head_to_head(session, bot_id, HEAD_TO_HEAD)
    who = queries.names_and_owners(session, [record[0] for record in records])
    return [
        HeadToHead(
            bot_id=other,
            bot=who[other][0],
            owner=who[other][1],
            games=games,
            ahead=ahead,
            behind=behind,
            tied=tied,
        )
        for other, games, ahead, behind, tied in records
    ]
