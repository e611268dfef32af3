"""What the pages and the JSON API show, read from the store once for both.

Every function takes an open session and the viewer (``None`` when signed out) and returns pydantic
models: the API returns them as JSON (and they document it in OpenAPI), the pages render them.
Owner-only things (a bot's logs and sources) are decided here, in one place: ``can_see_private``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel
from sqlalchemy import func, select
from sqlalchemy import text as sql
from sqlalchemy.orm import Session

from arena.bots import BUILTIN
from arena.games.registry import all_games, get_game
from arena.ladder.standing import KIND as LADDER
from arena.ratings.ladder import ladder_rows
from arena.ratings.load import TEAM_GAMES
from arena.ratings.model import ELO_PER_NAT
from arena.runner import replay
from arena.runner.match import deal_index
from arena.store import blobs
from arena.store.artifacts import local_artifact
from arena.store.blobs import BlobError
from arena.store.live import load_live
from arena.store.models import (
    Bot,
    BotVersion,
    GameOutcome,
    LadderState,
    Match,
    MatchStatus,
    Rating,
    RatingPoint,
    SeatResult,
    Tournament,
    User,
)
from arena.store.repo import progress, standings
from arena.text import escape_controls
from arena.tournament.scheduler import held_up_by


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


Timestamp = Annotated[datetime, AfterValidator(_utc)]
"""A moment as the store keeps it (UTC, without its zone), with its zone: ``...Z`` in JSON."""


class NotFound(LookupError):
    """Nothing of that kind with that id (or not visible to the viewer)."""


class Forbidden(PermissionError):
    """It exists, but the viewer may not see it."""


def can_see_private(viewer: User | None, bot: Bot) -> bool:
    """A bot's logs and sources: its owner, and admins."""
    return viewer is not None and (
        viewer.is_admin or (bot.owner_id is not None and bot.owner_id == viewer.id)
    )


# ---------------------------------------------------------------------------------------- games


class GameInfo(BaseModel):
    name: str
    title: str
    version: int
    min_seats: int
    max_seats: int
    builtin_bots: list[str]


def games() -> list[GameInfo]:
    return [
        GameInfo(
            name=game.name,
            title=game.title,
            version=game.version,
            min_seats=game.min_seats,
            max_seats=game.max_seats,
            builtin_bots=[f"builtin:{name}" for name in BUILTIN.get(game.name, {})],
        )
        for game in all_games()
    ]


# --------------------------------------------------------------------------------------- ladder


class LadderEntry(BaseModel):
    rank: int | None
    """Place on the ladder (1 best); None for a bot not connected to the main pool (``connected``)."""
    bot_id: int
    version_id: int
    bot: str
    owner: str
    elo: float
    """The batch fit's Elo (the ladder of record), or the live Elo of a bot not fitted yet."""
    halfwidth: float | None
    """Half-width of the 95% interval; None before the bot's first fit."""
    games: int
    provisional: bool
    superiority: float | None
    """Likelihood that this bot is stronger than the next one on the ladder."""
    live_elo: float
    live_games: int
    connected: bool
    """A chain of games links the bot to the main pool. If not, it has no rank, and its Elo and
    interval do not compare with the ranked bots' (the ladder shows it apart, "not yet connected")."""


class EloGap(BaseModel):
    """What a gap of ``elo`` points between two bots means in a game, under the ratings' model
    (``arena.ratings.model``)."""

    elo: float
    probability: float
    """That the higher-rated bot finishes ahead of the other (in a team game: that its team wins a
    decisive game against the other's)."""
    meaning: str


GAP = 100.0
"""The gap the ladder page explains."""


def elo_gap(game: str, gap: float = GAP) -> EloGap:
    """The model's reading of a ``gap``: finish orders are Plackett-Luce on the units' log-strengths
    (``gap / ELO_PER_NAT`` apart for two bots), so any two units finish in a given order with the
    logistic probability of their difference, whoever else plays. In a team game a unit is a team,
    the sum of its seats: on the ladder one bot holds all the seats of its side, so two teams differ
    by the gap times the seats of a side."""
    teams = TEAM_GAMES.get(game)
    seats = teams.count(teams[0]) if teams else 1
    probability = 1.0 / (1.0 + math.exp(-seats * gap / ELO_PER_NAT))
    apart = f"Between two bots {gap:.0f} Elo apart,"
    if teams:
        meaning = (
            f"{apart} a team of the higher-rated wins {probability:.0%} of decisive games against a team "
            f"of the other: a team is one bot in {seats} seats, and the model adds up a team's seats, so "
            f"the two teams are {seats * gap:.0f} Elo apart."
        )
    else:
        meaning = (
            f"{apart} the higher-rated finishes ahead of the other in {probability:.0%} of the games they "
            f"both play and do not tie, however many others sit at the table (in a game of two: odds of "
            f"{probability / (1 - probability):.1f} to 1)."
        )
    return EloGap(elo=gap, probability=round(probability, 4), meaning=meaning)


class Ladder(BaseModel):
    game: str
    title: str
    revision: int
    """Bumped by every change to the game's ratings: ``GET /ladders/{game}/revision`` tells whether
    the ladder moved since it was read."""
    fitted_at: Timestamp | None
    fit_games: int
    elo_gap: EloGap
    """What a gap of 100 Elo means in this game."""
    entries: list[LadderEntry]
    """Ranked bots (best first), then the bots not yet connected to them."""


class LadderRevision(BaseModel):
    game: str
    revision: int


def ladder(session: Session, game_name: str) -> Ladder:
    game = get_game(game_name)
    state = session.get(LadderState, game.name)
    return Ladder(
        game=game.name,
        title=game.title,
        revision=state.revision if state else 0,
        fitted_at=state.fitted_at if state else None,
        fit_games=state.fit_games if state else 0,
        elo_gap=elo_gap(game.name),
        entries=[
            LadderEntry(
                rank=row.rank,
                bot_id=row.bot_id,
                version_id=row.version_id,
                bot=row.bot,
                owner=row.owner,
                elo=round(row.elo, 1),
                halfwidth=None if row.halfwidth is None else round(row.halfwidth, 1),
                games=row.games,
                provisional=row.provisional,
                superiority=None if row.superiority is None else round(row.superiority, 4),
                live_elo=round(row.live_elo, 1),
                live_games=row.live_games,
                connected=row.connected,
            )
            for row in ladder_rows(session, game.name)
        ],
    )


# ------------------------------------------------------------------------------------------ bots


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


class MatchLine(BaseModel):
    id: int
    tournament_id: int
    ladder: bool
    """A match of the living ladder (its game's standing tournament), not of a tournament someone ran."""
    agent: int | None
    """The bot's seat in the match (its log: ``/matches/{id}/logs/{agent}``), on bot pages."""
    status: str
    finished_at: Timestamp | None
    opponents: list[str]
    """On bot pages: the other bots of the match; on tournament pages: every bot, in seat order."""
    games: int
    wins: int
    score: float


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


class QueuePlace(BaseModel):
    """Where a bot stands in the living ladder's queue: ``position`` 1 is picked next (for a match
    of its own; it may meet others sooner, as their opponent)."""

    position: int
    of: int


def queue_place(session: Session, game: str, version_ids: list[int]) -> QueuePlace | None:
    """The place of the first of ``version_ids`` (a bot's versions) in the queue the scheduler last
    published for ``game`` (``LadderState.queue``); None when none of them is in it."""
    state = session.get(LadderState, game)
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
    points = session.scalars(
        select(RatingPoint)
        .where(RatingPoint.bot_version_id.in_(version_ids))
        .order_by(RatingPoint.id.desc())
        .limit(HISTORY_LIMIT)
    ).all()
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
        versions=versions,
        ladder=next(iter(rows.values()), None),
        history=history,
        head_to_head=head_to_head(session, bot.id),
        matches=matches,
        match_count=count,
        page=page,
        pages=_pages(count, MATCHES_PAGE),
        queue=queue_place(session, bot.game, version_ids) if private else None,
    )


def _pages(count: int, size: int) -> int:
    """Pages of ``size`` that ``count`` lines fill (one, empty, for none)."""
    return max(1, -(-count // size))


def bot_matches(session: Session, bot: Bot, version_ids: list[int], page: int) -> tuple[int, list[MatchLine]]:
    """How many recorded matches the bot's versions played (a match per version, however many seats
    it held), and page ``page`` of them, newest first."""
    lines = (
        select(func.min(SeatResult.id).label("seat_id"))
        .where(SeatResult.bot_version_id.in_(version_ids))
        .group_by(SeatResult.match_id, SeatResult.bot_version_id)
        .subquery()
    )
    count = session.scalar(select(func.count()).select_from(lines)) or 0
    pages = _pages(count, MATCHES_PAGE)
    if page > pages:
        raise NotFound(
            f"{bot.name} has {count} matches on {pages} page(s) of {MATCHES_PAGE}, not page {page}"
        )
    seats = session.execute(
        select(SeatResult, Match, Tournament.kind)
        .join(lines, SeatResult.id == lines.c.seat_id)
        .join(Match, SeatResult.match_id == Match.id)
        .join(Tournament, Match.tournament_id == Tournament.id)
        .order_by(Match.id.desc(), SeatResult.agent)
        .offset((page - 1) * MATCHES_PAGE)
        .limit(MATCHES_PAGE)
    ).all()
    names = _version_names(session, {entrant for _, match, _ in seats for entrant in match.entrants})
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
    postgresql = session.get_bind().dialect.name == "postgresql"

    def elements(column: str, alias: str) -> str:
        """A JSON array column as rows (``key``: the index, ``value``), joined laterally."""
        if postgresql:
            return f"json_array_elements_text({column}) WITH ORDINALITY AS {alias}(value, key)"
        return f"json_each({column}) AS {alias}"

    query = sql(
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
    records = session.execute(
        query, {"bot": bot_id, "done": MatchStatus.DONE.value, "most": HEAD_TO_HEAD}
    ).all()
    who = {
        other: (name, owner or "builtin")
        for other, name, owner in session.execute(
            select(Bot.id, Bot.name, User.name)
            .outerjoin(User, Bot.owner_id == User.id)
            .where(Bot.id.in_([record[0] for record in records]))
        )
    }
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


def _version_names(session: Session, version_ids: set[int]) -> dict[int, str]:
    if not version_ids:
        return {}
    query = select(BotVersion.id, Bot.name).join(Bot).where(BotVersion.id.in_(version_ids))
    return {version_id: name for version_id, name in session.execute(query)}


class SourceFile(BaseModel):
    name: str
    size: int
    text: str | None
    """The content if it is UTF-8 text, else None."""


class Source(BaseModel):
    version_id: int
    entry: str
    files: list[SourceFile]


def source(session: Session, version_id: int, viewer: User | None, home: Path) -> Source:
    version = session.get(BotVersion, version_id)
    if version is None:
        raise NotFound(f"no bot version {version_id}")
    if not can_see_private(viewer, version.bot):
        raise Forbidden("only the bot's owner may read its source")
    if not version.spec.startswith("artifact:"):
        raise NotFound(f"version {version_id} is a built-in bot: its source is in the arena package")
    try:
        folder = local_artifact(session, version, home).folder
    except BlobError as error:
        raise NotFound(str(error)) from None
    files = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        data = path.read_bytes()
        try:
            text: str | None = data.decode()
        except UnicodeDecodeError:
            text = None
        files.append(SourceFile(name=path.relative_to(folder).as_posix(), size=len(data), text=text))
    return Source(version_id=version.id, entry=version.entry, files=files)


# --------------------------------------------------------------------------------------- matches


class SeatInfo(BaseModel):
    agent: int
    bot_id: int
    version_id: int
    bot: str
    owner: str
    games: int | None
    wins: int | None
    score: float | None
    mean_rank: float | None
    statuses: dict[str, int]
    log_visible: bool
    """Whether the viewer may read this seat's log (its bot's owner or an admin)."""


class GameLine(BaseModel):
    index: int
    deal: int
    seats: list[str]
    """Bot names in seat order."""
    ranks: list[int]
    statuses: list[str]


class MatchPage(BaseModel):
    id: int
    tournament_id: int
    ladder: bool
    """A match of the living ladder (its game's standing tournament), not of a tournament someone ran."""
    game: str
    status: str
    attempts: int
    seed: str | None
    """The match seed, in decimal (128 bits: too wide for a JSON number), once the match is over;
    until then it is secret, as every deal follows from it."""
    started_at: Timestamp | None
    finished_at: Timestamp | None
    error: str
    seats: list[SeatInfo]
    games: list[GameLine]
    replay_available: bool
    """Games can be replayed: every game with every card once the match is over; while it runs,
    the games finished so far in the public view only."""
    reveal: bool
    """The match is over: replays show every card and what each seat saw."""


def match_page(session: Session, match_id: int, viewer: User | None) -> MatchPage:
    match = session.get(Match, match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    results = {seat.agent: seat for seat in match.seats}
    versions = {v.id: v for v in session.scalars(select(BotVersion).where(BotVersion.id.in_(match.entrants)))}
    seats = []
    for agent, version_id in enumerate(match.entrants):
        version = versions[version_id]
        result = results.get(agent)
        seats.append(
            SeatInfo(
                agent=agent,
                bot_id=version.bot_id,
                version_id=version_id,
                bot=version.bot.name,
                owner=version.bot.owner.name if version.bot.owner else "builtin",
                games=result.games if result else None,
                wins=result.wins if result else None,
                score=result.score if result else None,
                mean_rank=result.mean_rank if result else None,
                statuses=result.statuses if result else {},
                log_visible=can_see_private(viewer, version.bot) and agent < len(match.log_blobs),
            )
        )
    running, done = match.status == MatchStatus.RUNNING, match.status == MatchStatus.DONE
    games = live_games(live_replay(session, match)) if running else stored_games(session, match, versions)
    return MatchPage(
        id=match.id,
        tournament_id=match.tournament_id,
        ladder=match.tournament.kind == LADDER,
        game=match.tournament.game,
        status=match.status,
        attempts=match.attempts,
        seed=str(match.seed) if done else None,
        started_at=match.started_at,
        finished_at=match.finished_at,
        error=match.error,
        seats=seats,
        games=games,
        replay_available=bool(games) and (running or (done and bool(match.replay_blob))),
        reveal=done,
    )


def stored_games(session: Session, match: Match, versions: dict[int, BotVersion]) -> list[GameLine]:
    """A finished match's games, as recorded (a running match has none stored yet)."""
    outcomes = session.scalars(
        select(GameOutcome).where(GameOutcome.match_id == match.id).order_by(GameOutcome.game_index)
    ).all()
    names = {version_id: version.bot.name for version_id, version in versions.items()}
    return [
        GameLine(
            index=outcome.game_index,
            deal=outcome.deal,
            seats=[names[version_id] for version_id in outcome.seats],
            ranks=outcome.ranks,
            statuses=outcome.statuses,
        )
        for outcome in outcomes
    ]


def live_replay(session: Session, match: Match) -> dict[str, Any] | None:
    """The running match's games finished so far, or None (none yet, or lines that cannot be read:
    the page then shows the match without them)."""
    try:
        return load_live(session, match)
    except replay.ReplayError:
        return None


def live_games(data: dict[str, Any] | None) -> list[GameLine]:
    if data is None:
        return []
    names = [seat["name"] for seat in data["seats"]]
    return [
        GameLine(
            index=game["index"],
            deal=deal_index(game["index"], len(names), data["duplicate"]),
            seats=[names[agent] for agent in game["seating"]],
            ranks=game["result"]["ranks"],
            statuses=game["statuses"],
        )
        for game in data["games"]
    ]


class Step(BaseModel):
    number: int
    """Decision number (while the match runs: number of the public change); -1 is the deal."""
    state: dict[str, Any]
    """After the step: the whole state (hands included) once the match is over; while it runs, the
    public view."""
    observation: Any = None
    """With ``seat``: what that seat saw after the step (its observation: its own hidden cards,
    nobody else's); else None."""
    public: dict[str, Any] | None = None
    """Once the match is over: the public view after the step (what a spectator saw: the auction,
    the trick, the scores), which ``state`` (the hidden cards) leaves out; while it runs, None (the
    public view is ``state``)."""
    seat: int | None = None
    bot: str | None = None
    action: dict[str, Any] | None = None
    ms: float | None = None
    fault: str | None = None
    fallback: bool = False


class ReplayView(BaseModel):
    match_id: int
    game_index: int
    games: int
    seating: list[int]
    names: list[str]
    """Bot name per seat of this game."""
    result: dict[str, Any]
    statuses: list[str]
    steps: list[Step]
    reveal: bool
    """True once the match is over: every step with the whole state (and a seat's view on request).
    False while it runs: only the public view, one step per change of it, with no actions, seats or
    timings (a step that changed nothing public, such as a molodka question, does not show), and
    the result without its details."""


def replay_view(
    session: Session, match_id: int, game_index: int, home: Path, seat: int | None = None
) -> ReplayView:
    match = session.get(Match, match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    running = match.status == MatchStatus.RUNNING
    data = live_replay(session, match) if running else None
    if running and data is None:
        raise NotFound(f"match {match_id} is running and none of its games has finished yet")
    if running and seat is not None:
        raise Forbidden(
            f"match {match_id} is running: what a seat sees (its cards) shows once the match is over; "
            "until then the replay shows only the public view"
        )
    if data is None:
        if match.status != MatchStatus.DONE or not match.replay_blob:
            raise Forbidden(f"match {match_id} is {match.status}: it has no games to replay")
        data = replay.parse(stored(session, match.replay_blob, home), f"match {match_id}'s replay")
    if not 0 <= game_index < len(data["games"]):
        raise NotFound(f"match {match_id} has games 0..{len(data['games']) - 1}, not {game_index}")
    record = data["games"][game_index]
    if seat is not None and not 0 <= seat < len(record["seating"]):
        raise NotFound(f"game {game_index} of match {match_id} has seats 0..{len(record['seating']) - 1}")
    seat_names = [data["seats"][agent]["name"] for agent in record["seating"]]
    return ReplayView(
        match_id=match.id,
        game_index=game_index,
        games=len(data["games"]),
        seating=record["seating"],
        names=seat_names,
        result={key: record["result"][key] for key in ("ranks", "scores")} if running else record["result"],
        statuses=record["statuses"],
        steps=public_steps(data, game_index) if running else full_steps(data, game_index, seat),
        reveal=not running,
    )


def replay_file(session: Session, match_id: int, home: Path) -> bytes:
    """A finished match's replay file, as recorded (``arena replay show`` and ``verify`` read it);
    while the match runs it is secret (its actions would give away the hidden cards)."""
    match = session.get(Match, match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    if match.status != MatchStatus.DONE or not match.replay_blob:
        raise Forbidden(f"match {match_id} is {match.status}: its replay file is there once it is over")
    return stored(session, match.replay_blob, home)


def full_steps(data: dict[str, Any], game_index: int, seat: int | None) -> list[Step]:
    """Every decision with the whole state after it, and with ``seat`` what that seat saw."""
    record = data["games"][game_index]
    seat_names = [data["seats"][agent]["name"] for agent in record["seating"]]
    faults = {fault["decision"]: f"{fault['status']}: {fault['detail']}" for fault in record["faults"]}
    fallback = set(record["fallback"])
    game = get_game(f"{data['game']}@{data['game_version']}")
    steps = []
    for number, state in enumerate(replay.play_through(data, game_index), -1):
        shown = json.loads(json.dumps(state.reveal()))
        seen = None if seat is None else jsonable(state.observation(seat))
        public = jsonable(game.public_view(state))
        if number < 0:
            steps.append(Step(number=-1, state=shown, observation=seen, public=public))
            continue
        actor, action, ms = record["actions"][number]
        steps.append(
            Step(
                number=number,
                seat=actor,
                bot=seat_names[actor],
                action=action,
                ms=ms,
                fault=faults.get(number),
                fallback=number in fallback,
                state=shown,
                observation=seen,
                public=public,
            )
        )
    return steps


def public_steps(data: dict[str, Any], game_index: int) -> list[Step]:
    """The game as a spectator saw it: its public view at the deal and after every change."""
    game = get_game(f"{data['game']}@{data['game_version']}")
    steps: list[Step] = []
    for state in replay.play_through(data, game_index):
        view = jsonable(game.public_view(state))
        if not steps or view != steps[-1].state:
            steps.append(Step(number=len(steps) - 1, state=view))
    return steps


def jsonable(value: Any) -> Any:
    """An engine's observation as plain JSON: named tuples and dataclasses as objects, enums by value."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: jsonable(item) for key, item in value._asdict().items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {spec.name: jsonable(getattr(value, spec.name)) for spec in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return jsonable(value.value)
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def match_log(session: Session, match_id: int, agent: int, viewer: User | None) -> str:
    match = session.get(Match, match_id)
    if match is None or not 0 <= agent < len(match.entrants):
        raise NotFound(f"no seat {agent} in match {match_id}")
    version = session.get(BotVersion, match.entrants[agent])
    assert version is not None
    if not can_see_private(viewer, version.bot):
        raise Forbidden("only the bot's owner may read its logs")
    if agent >= len(match.log_blobs):
        raise NotFound(f"match {match_id} has no logs yet")
    # Read from the store each time, without a copy kept: a log is at most 64 KiB, seldom read.
    return escape_controls(stored(session, match.log_blobs[agent], None).decode(errors="replace"))


def stored(session: Session, digest: str, home: Path | None) -> bytes:
    """A blob a page shows (copied under ``home``, if given); one that cannot be had is not found."""
    try:
        return blobs.get(session, digest, home)
    except BlobError as error:
        raise NotFound(str(error)) from None


# ----------------------------------------------------------------------------------- tournaments


class TournamentLine(BaseModel):
    id: int
    game: str
    kind: str
    games_per_match: int
    duplicate: bool
    created_at: Timestamp
    creator: str | None
    counts: dict[str, int]
    """Matches per status."""
    total: int
    finished: int
    status: Literal["running", "finished", "cancelled"]
    """``cancelled``: its creator or an admin cancelled it, and its unfinished matches are void."""


class Standing(BaseModel):
    bot: str
    bot_id: int
    version: int
    matches: int
    games: int
    wins: int
    score: float
    mean_rank: float
    faults: dict[str, int]


class TournamentPage(TournamentLine):
    ladder: bool
    """The living ladder's standing tournament of its game: it grows a match at a time for as long as
    the ladder runs, the lists of tournaments leave it out, and ``matches`` holds only its newest
    ``LADDER_MATCHES``, newest first."""
    standings: list[Standing]
    matches: list[MatchLine]
    held_up_by: str
    """Why its pending matches may not run (no scheduler, no worker, no broker); "" if nothing."""


def _line(session: Session, tournament: Tournament) -> TournamentLine:
    counts = progress(session, tournament.id)
    creator = session.get(User, tournament.created_by) if tournament.created_by else None
    return TournamentLine(
        id=tournament.id,
        game=tournament.game,
        kind=tournament.kind,
        games_per_match=tournament.games_per_match,
        duplicate=tournament.duplicate,
        created_at=tournament.created_at,
        creator=creator.name if creator else None,
        counts={status: count for status, count in counts.items() if count},
        total=sum(counts.values()),
        finished=sum(counts.values()) - counts[MatchStatus.PENDING] - counts[MatchStatus.RUNNING],
        status=_status(counts),
    )


def _status(counts: dict[str, int]) -> Literal["running", "finished", "cancelled"]:
    if counts[MatchStatus.VOID]:  # only cancelling voids a tournament's matches
        return "cancelled"
    return "running" if counts[MatchStatus.PENDING] or counts[MatchStatus.RUNNING] else "finished"


LADDER_MATCHES = 100
"""The matches a page of a ladder's standing tournament shows: its newest."""


def tournaments(session: Session, limit: int = 50) -> list[TournamentLine]:
    """The ``limit`` newest tournaments, leaving out the ladder's standing ones (they never end; their
    matches show on the bots' pages)."""
    rows = session.scalars(
        select(Tournament).where(Tournament.kind != LADDER).order_by(Tournament.id.desc()).limit(limit)
    ).all()
    return [_line(session, tournament) for tournament in rows]


TOURNAMENTS_PAGE = 20
"""Tournaments per page of the tournaments page."""


class TournamentList(BaseModel):
    tournaments: list[TournamentLine]
    """Page ``page`` of ``pages``, newest first."""
    count: int
    page: int
    pages: int


def tournament_list(session: Session, page: int, size: int = TOURNAMENTS_PAGE) -> TournamentList:
    """Page ``page`` of the tournaments (``size`` a page, newest first; the ladders' standing ones
    left out, as in ``tournaments``)."""
    count = session.scalar(select(func.count()).select_from(Tournament).where(Tournament.kind != LADDER)) or 0
    pages = _pages(count, size)
    if page > pages:
        raise NotFound(f"the tournaments fill {pages} page(s), not {page}")
    rows = session.scalars(
        select(Tournament)
        .where(Tournament.kind != LADDER)
        .order_by(Tournament.id.desc())
        .offset((page - 1) * size)
        .limit(size)
    ).all()
    return TournamentList(
        tournaments=[_line(session, tournament) for tournament in rows], count=count, page=page, pages=pages
    )


def tournament_page(session: Session, tournament_id: int) -> TournamentPage:
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise NotFound(f"no tournament {tournament_id}")
    is_ladder = tournament.kind == LADDER
    query = select(Match).where(Match.tournament_id == tournament.id)
    query = (
        query.order_by(Match.index.desc()).limit(LADDER_MATCHES) if is_ladder else query.order_by(Match.index)
    )
    matches = session.scalars(query).all()
    names = _version_names(session, {e for match in matches for e in match.entrants})
    line = _line(session, tournament)
    return TournamentPage(
        **line.model_dump(),
        ladder=is_ladder,
        held_up_by=held_up_by(session) if line.finished < line.total else "",
        standings=[Standing(**row) for row in standings(session, tournament_id)],
        matches=[
            MatchLine(
                id=match.id,
                tournament_id=tournament.id,
                ladder=is_ladder,
                agent=None,
                status=match.status,
                finished_at=match.finished_at,
                opponents=[names[entrant] for entrant in match.entrants],
                games=tournament.games_per_match,
                wins=0,
                score=0.0,
            )
            for match in matches
        ],
    )


# ------------------------------------------------------------------------------------------ users


class Me(BaseModel):
    name: str
    is_admin: bool
    bots: list[dict[str, Any]]


def me(session: Session, user: User) -> Me:
    bots = session.execute(
        select(Bot.id, Bot.game, Bot.name, func.count(BotVersion.id))
        .join(BotVersion, BotVersion.bot_id == Bot.id)
        .where(Bot.owner_id == user.id)
        .group_by(Bot.id)
        .order_by(Bot.game, Bot.name)
    ).all()
    return Me(
        name=user.name,
        is_admin=user.is_admin,
        bots=[
            {"id": bot_id, "game": game, "name": name, "versions": count}
            for bot_id, game, name, count in bots
        ],
    )


def playable_bots(session: Session, game: str) -> list[str]:
    """Names a tournament of ``game`` may enter: the built-ins and bots with a validated version."""
    names = [f"builtin:{name}" for name in BUILTIN.get(game, {})]
    query = (
        select(Bot.name)
        .join(BotVersion, BotVersion.bot_id == Bot.id)
        .where(Bot.game == game, BotVersion.validated, Bot.owner_id.is_not(None))
        .distinct()
        .order_by(Bot.name)
    )
    return names + list(session.scalars(query))


def games_by_name() -> dict[str, GameInfo]:
    return {info.name: info for info in games()}


def rated_versions(session: Session, game: str) -> int:
    return session.scalar(select(func.count()).select_from(Rating).where(Rating.game == game)) or 0
