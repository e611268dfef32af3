"""Creating a tournament from bot names: what the CLI and the web app both do."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from arena.games.base import BadConfig
from arena.games.registry import get_game
from arena.names import skeleton
from arena.ratings import rated
from arena.runner.deals import new_seed
from arena.runner.terms import GAMES_PER_MATCH
from arena.sandbox.backends import make_sandbox
from arena.store import blobs
from arena.store.artifacts import local_artifact
from arena.store.blobs import BlobError
from arena.store.db import Store, once_more_on_conflict
from arena.store.errors import NotAllowed, StoreError
from arena.store.models import BotVersion, Tournament, User
from arena.store.queries.bots import validating_versions
from arena.store.repo import bot_version, create_tournament, latest_version
from arena.store.repo.bots import end_validation, store_code
from arena.store.repo.ratings import ensure_ratings
from arena.submissions import Artifact, archive, check_submission, install
from arena.tournament import limits, schedule
from arena.tournament.validation import ValidationReport, validate

KINDS = ("round_robin", "gauntlet")


@dataclass(frozen=True)
class TournamentSpec:
    """A tournament to create: bots by name (``builtin:NAME`` or a submitted bot's name)."""

    game: str
    bots: Sequence[str]
    games_per_match: int = GAMES_PER_MATCH
    rounds: int = 1
    kind: str = "round_robin"
    seats: int | None = None
    """Seats per match for free-for-all games (default: every bot, up to the game's maximum)."""
    duplicate: bool = False
    seed: int | None = None
    """The secret seed every match seed derives from; ``None`` draws one from the CSPRNG. A seed
    someone chose may be guessed, and with it every deal."""
    config: dict[str, Any] = field(default_factory=dict)
    rated: bool = False
    """Its matches feed the ladder of record (``arena.ratings.rated``): an admin's choice, and only
    with the rated terms (no chosen seed, the default config). Otherwise unrated: own standings only."""


@dataclass(frozen=True)
class Created:
    tournament: Tournament
    matches: int
    seats: int
    meetings: tuple[int, int]
    """Fewest and most meetings of a pair of bots."""


def create(session: Session, spec: TournamentSpec, creator: User | None, *, limited: bool = True) -> Created:
    """Check ``spec`` (clear ``StoreError``/``BadConfig`` naming the problem) and create the
    tournament with its pending matches. ``limited``: within ``arena.tournament.limits``, checked
    before anything is built; only the operator's CLI, on the store itself, goes past them."""
    if limited:
        limits.check_request(spec.bots, spec.games_per_match, spec.rounds, spec.seats, spec.seed, spec.config)
    if spec.games_per_match < 1 or spec.rounds < 1:
        raise StoreError("games per match and rounds must be at least 1")
    game = get_game(spec.game)
    config = game.config_type.from_dict(spec.config)
    if spec.kind not in KINDS:
        raise StoreError(f"unknown tournament kind {spec.kind!r}: choose one of {', '.join(KINDS)}")
    if len(spec.bots) < 2:
        raise StoreError("a tournament needs at least two bots")
    if len(set(spec.bots)) != len(spec.bots):
        raise StoreError("a bot is listed twice")
    if spec.rated:
        _check_rated(game.name, config.to_dict(), game.version, spec.seed is not None, creator)
    seed = new_seed() if spec.seed is None else spec.seed
    team_game = game.teams is not None
    seats = game.max_seats if team_game else (spec.seats or min(len(spec.bots), game.max_seats))
    try:
        game.check_seats(seats)
    except BadConfig as error:
        raise StoreError(str(error)) from None
    game.check_config(config, seats)
    if limited:
        limits.check_match_size(spec.games_per_match, config.action_cap)

    def plan(rounds: int) -> list[schedule.MatchPlan]:
        if spec.kind == "gauntlet":
            return schedule.gauntlet(spec.bots[0], spec.bots[1:], seats, seed=seed, rounds=rounds)
        if team_game:
            return schedule.team_round_robin(spec.bots, seed=seed, rounds=rounds)
        return schedule.round_robin(spec.bots, seats, seed=seed, rounds=rounds)

    try:
        if limited:  # one round first (quick, within the limits on bots): all of them if they fit
            limits.check_matches(len(plan(1)), spec.rounds)
        plans = plan(spec.rounds)
        if limited:
            limits.check_matches(len(plans), 1)
    except ValueError as error:  # a field the schedule cannot seat, e.g. 2 bots in 3-seat matches
        raise StoreError(str(error)) from None
    versions = [latest_version(session, game.name, name) for name in spec.bots]
    index = {name: position for position, name in enumerate(spec.bots)}
    tournament = create_tournament(
        session,
        game=game.name,
        game_version=game.version,
        config=config.to_dict(),
        kind="team_round_robin" if team_game and spec.kind != "gauntlet" else spec.kind,
        entrants=versions,
        plans=[[index[name] for name in plan.entrants] for plan in plans],
        seeds=[plan.seed for plan in plans],
        games_per_match=spec.games_per_match,
        duplicate=spec.duplicate,
        seed=seed,
        seed_chosen=spec.seed is not None,
        rated=spec.rated,
        creator=creator,
    )
    ensure_ratings(session, game.name, (version.id for version in versions))
    meetings = list(schedule.pair_meetings(plans).values()) or [0]
    return Created(tournament, len(plans), seats, (min(meetings), max(meetings)))


def _check_rated(
    game: str, config: dict[str, Any], version: int, seed_chosen: bool, creator: User | None
) -> None:
    """A rated tournament is an admin's (``creator`` None: the operator, on the store itself), with
    the rated terms; ``NotAllowed`` or ``StoreError`` saying why not."""
    if creator is not None and not creator.is_admin:
        raise NotAllowed("only an admin may create a rated tournament: leave out rated")
    reasons = rated.refusals(game, config, version, seed_chosen=seed_chosen)
    if reasons:
        raise StoreError(
            f"a rated tournament keeps the rated terms, and this one cannot: {'; '.join(reasons)}"
        )


@dataclass(frozen=True)
class Registered:
    """A stored submission, recorded as a version that may not play until it passes validation."""

    version_id: int
    bot_id: int
    game: str
    artifact: Artifact
    validated: bool = False
    """The same code passed validation before: there is nothing left to validate."""


@dataclass(frozen=True)
class Submitted:
    version_id: int
    bot_id: int
    report: ValidationReport


def register(
    store: Store, home: Path, user: User, game: str, name: str, source: Path, entry: str | None
) -> Registered:
    """Store a submission (its files as a blob in the store, from which any host makes its folder,
    and that folder under ``home`` already) and record it as a new version of the user's bot
    ``name``, marked as validating. Raises ``SubmissionError``/``StoreError`` naming what is wrong
    with the input; runs no submitted code."""
    game_name = get_game(game).name
    if not name or len(name) > 64 or skeleton(name).startswith("builtin") or not name.isprintable():
        raise StoreError("a bot name has 1 to 64 printable characters and does not start with 'builtin'")
    submission = check_submission(source, entry)
    artifact = install(submission, home)
    code = blobs.pack(archive(submission.files))
    spec = f"artifact:{artifact.digest}"

    def record() -> Registered:
        with store.session() as session:
            version = bot_version(session, game_name, name, spec, user, artifact.entry)
            store_code(version, blobs.put(session, code))  # also for a version stored before blobs
            return Registered(version.id, version.bot_id, game_name, artifact, version.validated)

    return once_more_on_conflict(record)  # the same name or file may come in twice at once


def validate_version(store: Store, registered: Registered) -> ValidationReport:
    """Play the registered version's validation match in the sandbox and record the verdict."""
    try:
        report = validate(registered.artifact, registered.game, make_sandbox("bubblewrap"))
    except Exception:
        with store.session() as session:
            version = session.get_one(BotVersion, registered.version_id)
            end_validation(version, "validation could not run here: the arena's log has the reason")
        raise
    with store.session() as session:
        version = session.get_one(BotVersion, registered.version_id)
        end_validation(version, report.log, report.passed)
    return report


def submit(
    store: Store, home: Path, user: User, game: str, name: str, source: Path, entry: str | None
) -> Submitted:
    """Register a submission and validate it now, against the built-ins in the sandbox (it may play
    only if it passed)."""
    registered = register(store, home, user, game, name, source, entry)
    report = validate_version(store, registered)  # again if it passed before: the CLI shows the log
    return Submitted(registered.version_id, registered.bot_id, report)


def pending_validations(store: Store, home: Path) -> list[Registered]:
    """The versions whose validation never finished (the arena stopped during it), to run again,
    their code fetched into ``home`` if it lacks it; one whose code cannot be had fails, saying why."""
    pending = []
    with store.session() as session:
        for version in validating_versions(session):
            try:
                artifact = local_artifact(session, version, home)
            except BlobError as error:
                end_validation(version, f"validation could not run: {error}")
                continue
            pending.append(Registered(version.id, version.bot_id, version.bot.game, artifact))
    return pending
