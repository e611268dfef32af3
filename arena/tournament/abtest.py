"""Sequential A/B tests of two bot versions: NEW against OLD until the SPRT says better, worse or no
difference, or the games run out.

A test is an unrated tournament of kind ``abtest`` (duplicate deals: every deal in every seat
rotation, a secret seed) and a row of ``AbTest`` with its hypotheses and verdict. Two seats, NEW in
seat 0 and OLD in seat 1 at the start; a team game (kozel) seats NEW as one side and OLD as the
other. Its matches are added a few at a time (``IN_FLIGHT``), as the living ladder's are
(``arena.ladder.standing.add_match``), by whoever schedules (``arena.tournament.scheduler`` calls
``advance`` at every step: the service, or the stand-in ``arena bot test`` runs on the embedded
default). After every landed match the SPRT (``arena.ratings.sprt``) reads the deals' scores; at a
bound or the cap the test stops and its unfinished matches are void. It counts against its
creator's tournaments (``arena.tournament.quota``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.ladder.shape import LADDER_GAMES
from arena.ladder.standing import add_match
from arena.ratings import sprt
from arena.ratings.results import FloatArray
from arena.runner.deals import new_seed, seating_for
from arena.store.errors import NotAllowed, StoreError
from arena.store.models import AbTest, Bot, BotVersion, GameOutcome, Match, MatchStatus, Tournament, User, now
from arena.store.repo import latest_version
from arena.tournament import challenges, quota
from arena.tournament.abtest_args import DEFAULT_MAX_GAMES

KIND = "abtest"
IN_FLIGHT = 2
"""Matches a test keeps pending or running: the next is ready as one lands, and little is thrown
away at the stop."""
MAX_GAMES = 20_000
"""The most games a test may be allowed (``max_games``)."""
MAX_MATCH_GAMES = 48
FAILED_LIMIT = 3
"""Matches that failed on the infrastructure after which a test stops, saying so."""
UNFINISHED = (MatchStatus.PENDING, MatchStatus.RUNNING)


@dataclass(frozen=True)
class TestSpec:
    """A test to start: bots as ``builtin:NAME``, a bot's name (its newest validated version) or
    ``NAME@VERSION`` (that version id of the bot)."""

    game: str
    new: str
    old: str
    hypotheses: sprt.Hypotheses = field(default_factory=sprt.Hypotheses)
    max_games: int = DEFAULT_MAX_GAMES
    games_per_match: int = LADDER_GAMES


def seats(game: str) -> int:
    """A test's seats: two, or a team game's table (NEW one side, OLD the other)."""
    teams = get_game(game).teams
    return len(teams) if teams else 2


def resolve(session: Session, game: str, name: str, user: User | None) -> BotVersion:
    """The version ``name`` names (see ``TestSpec``), if ``user`` may play it (``challenges.may_use``:
    their own bot, or one open to others; ``None``, the operator, any); ``StoreError``/``NotAllowed``."""
    base, _, wanted = name.rpartition("@") if "@" in name else (name, "", "")
    if wanted:
        if not wanted.isdigit():
            raise StoreError(f"{name!r}: the version after @ is a version id, a whole number")
        version = session.get(BotVersion, int(wanted))
        if version is None or version.bot.name != base or version.bot.game != game:
            raise StoreError(f"the {game} bot {base!r} has no version {wanted}")
        if not version.validated:
            raise StoreError(f"version {wanted} of {base!r} has not passed validation")
    else:
        version = latest_version(session, game, name)
    bot = session.get_one(Bot, version.bot_id)
    if user is not None and not challenges.may_use(user, bot):
        raise NotAllowed(f"{bot.name} is not open to others: only its owner may test with or against it")
    return version


def create(session: Session, spec: TestSpec, user: User | None) -> AbTest:
    """Check ``spec`` and start the test: its tournament and first matches, pending. ``user`` None:
    the operator on the store itself (no quota)."""
    engine = get_game(spec.game)
    table = seats(engine.name)
    if not table <= spec.games_per_match <= MAX_MATCH_GAMES or spec.games_per_match % table:
        raise StoreError(
            f"a {engine.name} test plays every deal in each of its {table} seatings: games per match "
            f"must be a multiple of {table} from {table} to {MAX_MATCH_GAMES}, not {spec.games_per_match}"
        )
    if not spec.games_per_match <= spec.max_games <= MAX_GAMES:
        raise StoreError(
            f"the game cap must be from the games of one match ({spec.games_per_match}) to {MAX_GAMES}, "
            f"not {spec.max_games}"
        )
    new = resolve(session, engine.name, spec.new, user)
    old = resolve(session, engine.name, spec.old, user)
    if user is not None:
        quota.check_room(session, user)
    tournament = Tournament(
        game=engine.name,
        game_version=engine.version,
        config=engine.config_type().to_dict(),
        kind=KIND,
        games_per_match=spec.games_per_match,
        duplicate=True,
        seed=new_seed(),
        rated=False,
        created_by=user.id if user else None,
    )
    session.add(tournament)
    session.flush()
    h = spec.hypotheses
    test = AbTest(
        tournament_id=tournament.id,
        new_version_id=new.id,
        old_version_id=old.id,
        elo0=h.elo0,
        elo1=h.elo1,
        alpha=h.alpha,
        beta=h.beta,
        max_games=spec.max_games,
        verdict="",
    )
    session.add(test)
    session.flush()
    for _ in range(min(IN_FLIGHT, _matches_allowed(test, tournament, 0))):
        add_match(session, tournament, _seating(test, table))
    return test


def _seating(test: AbTest, table: int) -> list[int]:
    """NEW at the even agents, OLD at the odd ones (kozel: ``(new, old, new, old)``)."""
    return [test.new_version_id if agent % 2 == 0 else test.old_version_id for agent in range(table)]


def hypotheses(test: AbTest) -> sprt.Hypotheses:
    return sprt.Hypotheses(test.elo0, test.elo1, test.alpha, test.beta)


@dataclass(frozen=True)
class Landed:
    """A test's landed matches: each deal's score for NEW (in landing order), and after each match
    how many deals and games had landed."""

    scores: FloatArray
    deals_after: list[int]
    games_after: list[int]

    @property
    def games(self) -> int:
        return self.games_after[-1] if self.games_after else 0


def landed(session: Session, test: AbTest, *, by_game: bool = False) -> Landed:
    """The deals of ``test``'s done matches (``by_game``: each game on its own), in the order the
    matches landed. A game scores 1 for NEW when its best seat finished ahead of OLD's, 1/2 when
    level, 0 behind."""
    rows = session.execute(
        select(GameOutcome.match_id, GameOutcome.game_index, GameOutcome.deal, GameOutcome.ranks)
        .join(Match, GameOutcome.match_id == Match.id)
        .where(Match.tournament_id == test.tournament_id, Match.status == MatchStatus.DONE)
        .order_by(Match.finished_at, Match.id, GameOutcome.game_index)
    ).all()
    scores: list[float] = []
    clusters: list[tuple[int, int]] = []
    deals_after: list[int] = []
    games_after: list[int] = []
    for position, (match_id, game_index, deal, ranks) in enumerate(rows):
        agents = len(ranks)
        at = seating_for(game_index, agents, True)
        best_new = min(rank for seat, rank in enumerate(ranks) if at[seat] % 2 == 0)
        best_old = min(rank for seat, rank in enumerate(ranks) if at[seat] % 2 == 1)
        scores.append(1.0 if best_new < best_old else 0.5 if best_new == best_old else 0.0)
        clusters.append((match_id, game_index if by_game else deal))
        if position + 1 == len(rows) or rows[position + 1][0] != match_id:
            deals_after.append(len(set(clusters)))
            games_after.append(len(scores))
    if not scores:
        return Landed(np.zeros(0), [], [])
    labels = np.array([match * (MAX_MATCH_GAMES + 1) + deal for match, deal in clusters], dtype=np.int64)
    return Landed(sprt.cluster_means(np.array(scores), labels), deals_after, games_after)


@dataclass(frozen=True)
class Report:
    """A test as its pages and the CLI show it."""

    test_id: int
    tournament_id: int
    game: str
    new: str
    old: str
    new_version: int
    old_version: int
    hypotheses: sprt.Hypotheses
    max_games: int
    verdict: str
    state: sprt.State
    history: list[tuple[int, float]]
    """(games, LLR) after each landed match."""


def report(session: Session, test: AbTest) -> Report:
    h = hypotheses(test)
    done = landed(session, test)
    path = sprt.llr_path(h, done.scores)
    history = [
        (games, float(path[deals - 1]))
        for deals, games in zip(done.deals_after, done.games_after, strict=True)
    ]
    tournament = session.get_one(Tournament, test.tournament_id)
    new, old = (
        session.get_one(BotVersion, test.new_version_id),
        session.get_one(BotVersion, test.old_version_id),
    )
    return Report(
        test_id=test.id,
        tournament_id=test.tournament_id,
        game=tournament.game,
        new=new.bot.name,
        old=old.bot.name,
        new_version=new.id,
        old_version=old.id,
        hypotheses=h,
        max_games=test.max_games,
        verdict=test.verdict,
        state=sprt.state(h, done.scores, done.games),
        history=history,
    )


def _matches_allowed(test: AbTest, tournament: Tournament, games_so_far: int) -> int:
    """How many more matches fit under the test's game cap."""
    return max(0, (test.max_games - games_so_far) // tournament.games_per_match)


def advance(session: Session, only: int | None = None) -> None:
    """Every running test (or the one of tournament ``only``): stop it at an SPRT bound, the cap or
    too many failed matches (its unfinished matches void), else keep ``IN_FLIGHT`` matches in play."""
    query = select(AbTest).where(AbTest.verdict == "")
    if only is not None:
        query = query.where(AbTest.tournament_id == only)
    for test in session.scalars(query).all():
        _advance(session, test)


def _advance(session: Session, test: AbTest) -> None:
    tournament = session.get_one(Tournament, test.tournament_id)
    statuses = [
        str(status)
        for status in session.scalars(select(Match.status).where(Match.tournament_id == test.tournament_id))
    ]
    playing = sum(status in UNFINISHED for status in statuses)
    failed = statuses.count(MatchStatus.FAILED_INFRASTRUCTURE)
    if MatchStatus.VOID in statuses:
        return _stop(session, test, "cancelled")
    if playing >= IN_FLIGHT:  # nothing landed since the last top-up
        return
    done = landed(session, test)
    verdict = sprt.state(hypotheses(test), done.scores, done.games).verdict
    if not verdict and failed >= FAILED_LIMIT:
        verdict = f"stopped: {failed} matches failed"
    scheduled = done.games + playing * tournament.games_per_match
    if not verdict and playing == 0 and _matches_allowed(test, tournament, scheduled) == 0:
        verdict = sprt.CAP
    if verdict:
        return _stop(session, test, verdict)
    more = min(IN_FLIGHT - playing, _matches_allowed(test, tournament, scheduled))
    for _ in range(max(more, 0)):
        add_match(session, tournament, _seating(test, seats(tournament.game)))


def _stop(session: Session, test: AbTest, verdict: str) -> None:
    test.verdict = verdict
    test.finished_at = now()
    # a match a worker records meanwhile stays done; one voided first has its result refused
    session.execute(
        update(Match)
        .where(Match.tournament_id == test.tournament_id, Match.status.in_(UNFINISHED))
        .values(
            status=MatchStatus.VOID,
            finished_at=now(),
            lease_until=None,
            error=f"the A/B test ended: {verdict}",
        )
    )
