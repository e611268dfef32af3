"""Sequential A/B tests of two bot versions: NEW plays OLD until the SPRT gives its verdict.

The verdict is better, worse or no difference, unless the games run out first. A test is an unrated
tournament of kind ``abtest`` (duplicate deals, a secret seed) and a row of ``AbTest`` with its
hypotheses and verdict; NEW and OLD take a seat or a side each, or in a free-for-all each face a
panel seated alike. Its matches are added a few at a time (``IN_FLIGHT``) by whoever schedules
(``arena.tournament.scheduler`` calls ``advance``); after every landed match the SPRT
(``arena.ratings.sprt``) reads the deals' scores, and at a bound or the cap the test stops and its
unfinished matches are void. It counts against its creator's tournaments (``arena.tournament.quota``).

In full: docs/ab-tests.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.ladder.shape import LADDER_GAMES
from arena.ladder.standing import add_match
from arena.ratings import sprt
from arena.ratings.results import FloatArray
from arena.runner.deals import new_seed, seating_for
from arena.store.errors import NotAllowed, StoreError
from arena.store.models import AbTest, Bot, BotVersion, MatchStatus, Tournament, User
from arena.store.queries.abtests import landed_games, running_tests
from arena.store.queries.tournaments import match_statuses
from arena.store.repo.abtests import end_ab_test, start_ab_test
from arena.store.repo.bots import latest_version
from arena.store.repo.tournaments import create_tournament, void_matches
from arena.tournament import challenges, quota
from arena.tournament.limits import DEFAULT_TEST_GAMES, MAX_TEST_GAMES

KIND = "abtest"
IN_FLIGHT = 2
"""Matches a test keeps pending or running: the next is ready as one lands, and little is thrown
away at the stop."""
MAX_MATCH_GAMES = 48
MAX_VERSION_ID = 2**31 - 1
"""Larger ids name no version (and would overflow a database's integer)."""
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
    max_games: int = DEFAULT_TEST_GAMES
    games_per_match: int = LADDER_GAMES
    panel: tuple[str, ...] = ()
    """Free-for-all games: opponents, named as NEW and OLD are, who play NEW's matches and, seated
    alike on the same deals, OLD's; empty: NEW against OLD."""


def seats(game: str, panel: int = 0) -> int:
    """A test's seats: two, or a team game's table (NEW one side, OLD the other), or with a panel
    one more than the panel."""
    teams = get_game(game).teams
    return panel + 1 if panel else len(teams) if teams else 2


def resolve(session: Session, game: str, name: str, user: User | None) -> BotVersion:
    """The version ``name`` names (see ``TestSpec``), if ``user`` may play it (``challenges.may_use``:
    their own bot, or one open to others; ``None``, the operator, any); ``StoreError``/``NotAllowed``."""
    base, _, wanted = name.rpartition("@") if "@" in name else (name, "", "")
    if wanted:
        if not (wanted.isascii() and wanted.isdigit()):
            raise StoreError(f"{name!r}: the version after @ is a version id, a whole number")
        version = session.get(BotVersion, int(wanted)) if int(wanted) <= MAX_VERSION_ID else None
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
    if spec.panel and engine.teams is not None:
        raise StoreError(f"{engine.name} is played side against side: a test of it has no panel")
    if len(spec.panel) >= engine.max_seats:
        raise StoreError(
            f"a {engine.name} panel has at most {engine.max_seats - 1} bots, not {len(spec.panel)}"
        )
    table = seats(engine.name, len(spec.panel))
    if not table <= spec.games_per_match <= MAX_MATCH_GAMES or spec.games_per_match % table:
        raise StoreError(
            f"a {engine.name} test plays every deal in each of its {table} seatings: games per match "
            f"must be a multiple of {table} from {table} to {MAX_MATCH_GAMES}, not {spec.games_per_match}"
        )
    if not spec.games_per_match <= spec.max_games <= MAX_TEST_GAMES:
        raise StoreError(
            f"the game cap must be from the games of one match ({spec.games_per_match}) to {MAX_TEST_GAMES}, "
            f"not {spec.max_games}"
        )
    new = resolve(session, engine.name, spec.new, user)
    old = resolve(session, engine.name, spec.old, user)
    panel = [resolve(session, engine.name, name, user).id for name in spec.panel]
    if user is not None:
        quota.check_room(session, user)
    tournament = create_tournament(
        session,
        game=engine.name,
        game_version=engine.version,
        config=engine.config_type().to_dict(),
        kind=KIND,
        entrants=[],
        plans=[],
        seeds=[],
        games_per_match=spec.games_per_match,
        duplicate=True,
        seed=new_seed(),
        seed_chosen=False,
        rated=False,
        creator=user,
    )
    h = spec.hypotheses
    test = start_ab_test(
        session,
        tournament.id,
        new_version_id=new.id,
        old_version_id=old.id,
        elo0=h.elo0,
        elo1=h.elo1,
        alpha=h.alpha,
        beta=h.beta,
        max_games=spec.max_games,
        panel=panel,
    )
    _add_units(session, test, tournament, min(IN_FLIGHT, _units_allowed(test, tournament, 0)))
    return test


def _per_unit(test: AbTest) -> int:
    """Matches a unit of the test takes: one of NEW against OLD, or a panel test's pair."""
    return 2 if test.panel else 1


def _add_units(session: Session, test: AbTest, tournament: Tournament, units: int) -> None:
    """Add ``units`` matches of NEW against OLD (NEW at the even agents, OLD at the odd ones: kozel
    ``(new, old, new, old)``), or pairs: NEW then OLD in agent 0 before the panel, on one seed."""
    new, old = test.new_version_id, test.old_version_id
    table = seats(tournament.game, len(test.panel))
    for _ in range(units):
        if not test.panel:
            add_match(session, tournament, [new if agent % 2 == 0 else old for agent in range(table)])
            continue
        first = add_match(session, tournament, [new, *test.panel])
        add_match(session, tournament, [old, *test.panel], seed=first.seed)


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
    """The deals of ``test``'s landed units (a match, or a panel test's pair once both are done) in
    the order they landed, each scored for NEW (``by_game``: each game on its own). A game scores 1
    when NEW's best seat finished ahead of OLD's (a panel test: NEW's seat in its match ahead of
    OLD's in the same seat of the same deal in its), 1/2 when level, 0 behind."""
    games = _compared(session, test)
    scores = [score for _, _, _, score in games]
    clusters = [(unit, game if by_game else deal) for unit, game, deal, _ in games]
    deals_after: list[int] = []
    games_after: list[int] = []
    for position, (unit, _, _, _) in enumerate(games):
        if position + 1 == len(games) or games[position + 1][0] != unit:
            deals_after.append(len(set(clusters)))
            games_after.append((position + 1) * _per_unit(test))
    if not scores:
        return Landed(np.zeros(0), [], [])
    labels = np.array([unit * (MAX_MATCH_GAMES + 1) + deal for unit, deal in clusters], dtype=np.int64)
    return Landed(sprt.cluster_means(np.array(scores), labels), deals_after, games_after)


def _score(new_rank: int, old_rank: int) -> float:
    return 1.0 if new_rank < old_rank else 0.5 if new_rank == old_rank else 0.0


def _compared(session: Session, test: AbTest) -> list[tuple[int, int, int, float]]:
    """(unit, game index, deal, NEW's score) of every game compared, units in landing order."""
    rows = landed_games(session, test.tournament_id)
    if not test.panel:
        compared = []
        for index, _, game, deal, ranks in rows:
            at = seating_for(game, len(ranks), True)
            new = min(rank for seat, rank in enumerate(ranks) if at[seat] % 2 == 0)
            old = min(rank for seat, rank in enumerate(ranks) if at[seat] % 2 == 1)
            compared.append((index, game, deal, _score(new, old)))
        return compared
    halves: dict[int, tuple[dict[int, tuple[int, int]], dict[int, tuple[int, int]]]] = {}
    landed_at: dict[int, datetime] = {}
    for index, finished, game, deal, ranks in rows:
        unit = index // 2
        halves.setdefault(unit, ({}, {}))[index % 2][game] = (
            deal,
            ranks[seating_for(game, len(ranks), True).index(0)],
        )
        when = finished or datetime.min
        landed_at[unit] = max(landed_at.get(unit, when), when)
    both = sorted(
        (unit for unit, (new, old) in halves.items() if new and old), key=lambda u: (landed_at[u], u)
    )
    return [
        (unit, game, halves[unit][0][game][0], _score(halves[unit][0][game][1], halves[unit][1][game][1]))
        for unit in both
        for game in sorted(halves[unit][0].keys() & halves[unit][1].keys())
    ]


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
    panel: list[str]
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
        panel=[session.get_one(BotVersion, version).bot.name for version in test.panel],
        hypotheses=h,
        max_games=test.max_games,
        verdict=test.verdict,
        state=sprt.state(h, done.scores, done.games),
        history=history,
    )


def _units_allowed(test: AbTest, tournament: Tournament, games_so_far: int) -> int:
    """How many more units (``_per_unit``) fit under the test's game cap."""
    return max(0, (test.max_games - games_so_far) // (tournament.games_per_match * _per_unit(test)))


def advance(session: Session, only: int | None = None) -> None:
    """Every running test (or the one of tournament ``only``): stop it at an SPRT bound, the cap or
    too many failed matches (its unfinished matches void), else keep ``IN_FLIGHT`` matches in play."""
    for test in running_tests(session, only):
        _advance(session, test)


def _advance(session: Session, test: AbTest) -> None:
    tournament = session.get_one(Tournament, test.tournament_id)
    statuses = match_statuses(session, test.tournament_id)
    playing = sum(status in UNFINISHED for status in statuses)
    units_playing = -(-playing // _per_unit(test))
    failed = statuses.count(MatchStatus.FAILED_INFRASTRUCTURE)
    if MatchStatus.VOID in statuses:
        return _stop(session, test, "cancelled")
    if units_playing >= IN_FLIGHT:  # nothing landed since the last top-up
        return
    done = landed(session, test)
    verdict = sprt.state(hypotheses(test), done.scores, done.games).verdict
    if not verdict and failed >= FAILED_LIMIT:
        verdict = f"stopped: {failed} matches failed"
    played = sum(status in (MatchStatus.DONE, *UNFINISHED) for status in statuses)
    scheduled = played * tournament.games_per_match
    if not verdict and playing == 0 and _units_allowed(test, tournament, scheduled) == 0:
        verdict = sprt.CAP
    if verdict:
        return _stop(session, test, verdict)
    _add_units(
        session,
        test,
        tournament,
        max(0, min(IN_FLIGHT - units_playing, _units_allowed(test, tournament, scheduled))),
    )


def _stop(session: Session, test: AbTest, verdict: str) -> None:
    end_ab_test(test, verdict)
    void_matches(session, test.tournament_id, UNFINISHED, f"the A/B test ended: {verdict}")
