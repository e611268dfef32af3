"""The tournament side of the ``arena`` command: users, bot submissions, tournaments, workers.

On the embedded default (SQLite in ``$ARENA_HOME``) the schema is brought up to date on first
use and a local admin account is created, its token kept in ``$ARENA_HOME/api-token`` (mode
0600) and used when no token is given. On PostgreSQL run ``arena db upgrade`` first and pass a
token (``--token`` or ``ARENA_API_TOKEN``).
"""

from __future__ import annotations

import argparse
import os
import time
from datetime import timedelta

from sqlalchemy.exc import OperationalError, ProgrammingError

from arena.games.registry import get_game
from arena.ratings.ladder import ladder_rows
from arena.runner.progress import ProgressBar
from arena.sandbox import make_sandbox
from arena.store.db import Store, default_url
from arena.store.errors import StoreError
from arena.store.models import LadderState, Match, MatchStatus, Tournament, User
from arena.store.repo import (
    authenticate,
    bot_version,
    create_tournament,
    create_user,
    latest_version,
    progress,
    standings,
)
from arena.submissions import store_submission, validate
from arena.tournament import schedule
from arena.tournament.execute import data_home, pending_matches, run_celery, run_local

LOCAL_ADMIN = "local"


def open_store(args: argparse.Namespace) -> Store:
    store = Store(args.db or default_url(data_home()))
    if store.url.startswith("sqlite"):
        store.upgrade()
    return store


def current_user(store: Store, args: argparse.Namespace) -> User:
    """The user named by the token; on the embedded default without a token, the local admin."""
    token = args.token or os.environ.get("ARENA_API_TOKEN")
    token_file = data_home() / "api-token"
    if not token and store.url.startswith("sqlite"):
        if token_file.exists():
            token = token_file.read_text().strip()
        else:
            with store.session() as session:
                _, token = create_user(session, LOCAL_ADMIN, admin=True)
            token_file.write_text(token + "\n")
            token_file.chmod(0o600)
    with store.session() as session:
        user = authenticate(session, token)
        session.expunge(user)
        return user


def cmd_db_upgrade(args: argparse.Namespace) -> int:
    store = Store(args.db or default_url(data_home()))
    store.upgrade()
    print(f"database at the newest schema: {store.engine.url.render_as_string(hide_password=True)}")
    return 0


def cmd_user_create(args: argparse.Namespace) -> int:
    store = open_store(args)
    admin = current_user(store, args)
    if not admin.is_admin:
        raise StoreError("only an admin may create users")
    with store.session() as session:
        user, token = create_user(session, args.name, admin=args.admin)
    print(f"user {user.name} created; API token (shown once, keep it secret):\n{token}")
    return 0


def cmd_bot_submit(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    store = open_store(args)
    user = current_user(store, args)
    artifact = store_submission(args.path, data_home(), args.entry)
    print(f"stored artifact {artifact.digest[:16]}… (entry {artifact.entry}); validating in the sandbox")
    report = validate(artifact, game.name, make_sandbox("bubblewrap"))
    with store.session() as session:
        version = bot_version(
            session, game.name, args.name, f"artifact:{artifact.digest}", user, artifact.entry
        )
        version.validated = report.passed
        version.validation_log = report.log
        version_id = version.id
    print("---- validation log ----")
    print(report.log.rstrip() or "(empty)")
    print("------------------------")
    if not report.passed:
        print(
            f"validation FAILED ({', '.join(report.statuses)}): {args.name} version {version_id} may not play"
        )
        return 1
    print(f"bot {args.name} version {version_id} passed validation and may enter {game.name} tournaments")
    return 0


def cmd_tournament_create(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    config = game.config_type.from_dict(args.config)
    store = open_store(args)
    user = current_user(store, args)
    if len(set(args.bots)) != len(args.bots):
        raise StoreError("a bot is listed twice")
    team_game = game.name == "kozel"
    seats = game.max_seats if team_game else (args.seats or min(len(args.bots), game.max_seats))
    game.check_seats(seats)
    if args.kind == "gauntlet":
        plans = schedule.gauntlet(args.bots[0], args.bots[1:], seats, seed=args.seed, rounds=args.rounds)
    elif team_game:
        plans = schedule.team_round_robin(args.bots, seed=args.seed, rounds=args.rounds)
    else:
        plans = schedule.round_robin(args.bots, seats, seed=args.seed, rounds=args.rounds)
    with store.session() as session:
        versions = [latest_version(session, game.name, name) for name in args.bots]
        index = {name: position for position, name in enumerate(args.bots)}
        tournament = create_tournament(
            session,
            game=game.name,
            game_version=game.version,
            config=config.to_dict(),
            kind="team_round_robin" if team_game and args.kind != "gauntlet" else args.kind,
            entrants=versions,
            plans=[[index[name] for name in plan.entrants] for plan in plans],
            seeds=[plan.seed for plan in plans],
            games_per_match=args.games_per_match,
            duplicate=args.duplicate,
            seed=args.seed,
            creator=user,
        )
        tournament_id = tournament.id
    meetings = list(schedule.pair_meetings(plans).values()) or [0]
    print(
        f"tournament {tournament_id}: {game.game_id}, {len(plans)} matches of {args.games_per_match} games, "
        f"{seats} seats, every pair meets {min(meetings)}-{max(meetings)} times"
        + (", duplicate deals" if args.duplicate else "")
    )
    if args.run:
        args.id, args.executor, args.workers = tournament_id, "local", None
        return cmd_tournament_run(args)
    return 0


def _tournament(store: Store, tournament_id: int) -> tuple[int, int]:
    with store.session() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            raise StoreError(f"no tournament {tournament_id}")
        return len(tournament.matches), sum(match.status == MatchStatus.DONE for match in tournament.matches)


def cmd_tournament_run(args: argparse.Namespace) -> int:
    store = open_store(args)
    current_user(store, args)
    total, done = _tournament(store, args.id)
    bar = ProgressBar(total, label=f"tournament {args.id}")
    bar.update(done)
    started = time.perf_counter()
    if args.executor == "local":
        run_local(args.id, store.url, args.workers, lambda finished, _: bar.update(done + finished))
    else:
        run_celery(
            args.id,
            store.url,
            lambda finished, _: bar.update(finished),
            timedelta(seconds=args.match_deadline),
        )
    bar.close()
    elapsed = time.perf_counter() - started
    print_status(store, args.id)
    with store.session() as session:
        tournament = session.get(Tournament, args.id)
        assert tournament is not None
        game = tournament.game
    refit_ladder(store, game)
    print(f"ladder refitted: `arena ladder {game} --stored` prints it")
    with store.session() as session:
        finished = session.query(Match).filter(
            Match.tournament_id == args.id, Match.status == MatchStatus.DONE
        )
        count = finished.count() - done
    if elapsed > 0 and count:
        print(f"{count} matches in {elapsed:.1f} s: {60 * count / elapsed:.1f} matches/minute")
    return 0 if not pending_matches(store, args.id) else 1


def _counts(store: Store, tournament_id: int) -> dict[str, int]:
    with store.session() as session:
        return progress(session, tournament_id)


def print_status(store: Store, tournament_id: int) -> None:
    counts = _counts(store, tournament_id)
    print("matches: " + ", ".join(f"{status} {count}" for status, count in counts.items() if count))
    with store.session() as session:
        rows = standings(session, tournament_id)
    header = (
        f"{'#':>3}  {'bot':<20} {'matches':>7} {'games':>6} {'wins':>6} {'score':>8} {'mean rank':>9}  faults"
    )
    print(header)
    print("-" * len(header))
    for place, row in enumerate(rows, 1):
        faults = ", ".join(f"{status} {count}" for status, count in sorted(row["faults"].items())) or "-"
        print(
            f"{place:>3}  {row['bot']:<20} {row['matches']:>7} {row['games']:>6} {row['wins']:>6} "
            f"{row['score']:>8.1f} {row['mean_rank']:>9.2f}  {faults}"
        )


def cmd_tournament_status(args: argparse.Namespace) -> int:
    store = open_store(args)
    _tournament(store, args.id)
    print_status(store, args.id)
    return 0


def cmd_ladder(args: argparse.Namespace) -> int:
    """Refit the ladder of record from every stored result of the game (unless ``--stored``) and
    print it."""
    game = get_game(args.game)
    store = open_store(args)
    if not args.stored:
        refit_ladder(store, game.name)
    with store.session() as session:
        rows = ladder_rows(session, game.name)
        fitted = session.get(LadderState, game.name)
    if not rows:
        print(f"no {game.name} results yet: run a tournament first")
        return 0
    when = (
        f"batch fit of {fitted.fit_games} games at {fitted.fitted_at:%Y-%m-%d %H:%M} UTC"
        if fitted and fitted.fitted_at
        else "live Elo only, no fit yet"
    )
    print(f"{game.title} ladder ({when}): Elo with 95% intervals")
    header = f"{'#':>3}  {'bot':<24} {'Elo':>7} {'+-95%':>7} {'games':>7}  {'P(better than next)':>19}"
    print(header)
    print("-" * len(header))
    for row in rows:
        superiority = "" if row.superiority is None else f"{100 * row.superiority:.1f}%"
        halfwidth = "" if row.halfwidth is None else f"{row.halfwidth:.1f}"
        flag = " provisional" if row.provisional else ""
        print(
            f"{row.rank:>3}  {row.bot:<24} {row.elo:>7.1f} {halfwidth:>7} {row.games:>7}  "
            f"{superiority:>19}{flag}"
        )
    return 0


def refit_ladder(store: Store, game: str) -> None:
    """The batch fit of ``game``'s stored results, written to the store."""
    from arena.ratings.ladder import refit

    with store.session() as session:
        refit(store.engine, session, game)


def cmd_worker(args: argparse.Namespace) -> int:
    from workers.app import app

    argv = ["worker", "--loglevel", args.loglevel, "--concurrency", str(args.concurrency), "-Q", "matches"]
    app.worker_main(argv)
    return 0


def dispatch(args: argparse.Namespace) -> int:
    """Run one of the server-side commands."""
    handlers = {
        ("db", "upgrade"): cmd_db_upgrade,
        ("user", "create"): cmd_user_create,
        ("bot", "submit"): cmd_bot_submit,
        ("tournament", "create"): cmd_tournament_create,
        ("tournament", "run"): cmd_tournament_run,
        ("tournament", "status"): cmd_tournament_status,
        ("ladder", ""): cmd_ladder,
    }
    if args.command == "worker":
        return cmd_worker(args)
    action = str(getattr(args, f"{args.command}_command", ""))
    handler = handlers[(args.command, action)]
    try:
        return handler(args)
    except (OperationalError, ProgrammingError) as error:
        raise StoreError(f"the database is not ready ({error.orig!r}); run `arena db upgrade`") from error
