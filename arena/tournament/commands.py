"""The tournament side of the ``arena`` command: users, bot submissions, tournaments, workers.

On the embedded default (SQLite in ``$ARENA_HOME``) the schema is brought up to date on first
use and a local admin account is created, its token kept in ``$ARENA_HOME/api-token`` (mode
0600) and used when no token is given. On PostgreSQL run ``arena db upgrade`` first and pass a
token (``--token`` or ``ARENA_API_TOKEN``).
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import os
import signal
import sys
import threading
import time
import webbrowser
from collections.abc import Iterator

from sqlalchemy import func, select
from sqlalchemy.exc import OperationalError, ProgrammingError

from arena.games.registry import get_game
from arena.ladder.feeder import Feeder
from arena.ratings.ladder import ladder_rows
from arena.ratings.rated import TERMS, is_rated
from arena.runner.progress import ProgressBar
from arena.store.db import Store, default_url
from arena.store.errors import AuthError, StoreError
from arena.store.models import LadderState, Match, MatchStatus, Tournament, User
from arena.store.repo import (
    authenticate,
    create_user,
    progress,
    retry_failed,
    standings,
)
from arena.text import clip, escape_controls
from arena.tournament.cli_args import UsageError
from arena.tournament.executors import CeleryWorkers, Executor, LocalPool
from arena.tournament.play import data_home
from arena.tournament.scheduler import Scheduler
from arena.tournament.service import TournamentSpec, create, submit

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
                if session.scalar(select(User.id).where(User.name == LOCAL_ADMIN)) is not None:
                    raise AuthError(
                        "an API token is required (--token or ARENA_API_TOKEN): this store's local "
                        f"admin was made from another data folder than {data_home()}, whose api-token "
                        "file holds its token"
                    )
                _, token = create_user(session, LOCAL_ADMIN, admin=True, system=True)
            token_file.parent.mkdir(parents=True, exist_ok=True)  # with --db, the store may be elsewhere
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
    """Admins create users; on a database with no user yet (a new PostgreSQL store) the first user
    needs no token and is made an admin."""
    store = open_store(args)
    with store.session() as session:
        first = (
            not store.url.startswith("sqlite") and session.scalar(select(func.count()).select_from(User)) == 0
        )
    if not first and not current_user(store, args).is_admin:
        raise StoreError("only an admin may create users")
    with store.session() as session:
        user, token = create_user(session, args.name, admin=args.admin or first, system=True)
    role = "admin " if user.is_admin else ""
    print(f"{role}user {user.name} created; API token (shown once, keep it secret):\n{token}")
    return 0


def cmd_user_password(args: argparse.Namespace) -> int:
    from arena.web.security import set_password

    store = open_store(args)
    me = current_user(store, args)
    if me.name != args.name and not me.is_admin:
        raise StoreError("only an admin may set another user's password")
    password = read_password()
    with store.session() as session:
        user = session.scalar(select(User).where(User.name == args.name))
        if user is None:
            raise StoreError(f"no user {args.name!r}")
        set_password(user, password)
    print(f"web password of {args.name} set")
    return 0


def read_password() -> str:
    if password := os.environ.get("ARENA_PASSWORD"):
        return password
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("new password: ")
    if getpass.getpass("again: ") != first:
        raise StoreError("the two passwords differ")
    return first


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from arena.web.app import create_app
    from arena.web.settings import Settings

    if args.executor == "celery":
        checked_broker_url()
    store = open_store(args)
    if store.url.startswith("sqlite"):
        current_user(store, args)  # the embedded default's local admin exists from the start
    settings = Settings(
        store_url=store.url,
        home=data_home(),
        executor=args.executor,
        workers=args.workers,
        secure_cookies=args.secure_cookies,
        ladder=not args.no_ladder,
    )
    base = f"http://{args.host}:{args.port}"
    print(f"Card Arena on {base}/  (ladders: {base}/ladder/GAME, API docs: {base}/api/docs); Ctrl-C stops it")
    if args.open:
        target = base + (args.open if args.open.startswith("/") else "/" + args.open)
        print(f"opening {target}")
        threading.Timer(1.0, webbrowser.open, (target,)).start()
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="warning")
    return 0


def cmd_bot_submit(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    store = open_store(args)
    user = current_user(store, args)
    print(f"storing {args.path} and validating it in the sandbox")
    submitted = submit(store, data_home(), user, game.name, args.name, args.path, args.entry)
    report = submitted.report
    print("---- validation log ----")
    print(escape_controls(report.log.rstrip()) or "(empty)")
    print("------------------------")
    if not report.passed:
        print(
            f"validation FAILED ({report.summary()}): {args.name} version {submitted.version_id} may not play"
        )
        return 1
    print(
        f"bot {args.name} version {submitted.version_id} passed validation: it is on the {game.name} "
        "ladder, which a scheduler service plays (`arena scheduler`, or `arena serve`), and may enter "
        f"{game.name} tournaments"
    )
    return 0


def cmd_tournament_create(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    store = open_store(args)
    user = current_user(store, args)
    spec = TournamentSpec(
        game=game.name,
        bots=args.bots,
        games_per_match=args.games_per_match,
        rounds=args.rounds,
        kind=args.kind,
        seats=args.seats,
        duplicate=args.duplicate,
        seed=args.seed,
        config=args.config,
        rated=args.rated,
    )
    with store.session() as session:
        # the operator, on the store itself: the limits keep the web app's users from swamping it
        created = create(session, spec, user, limited=False)
        tournament_id = created.tournament.id
    low, high = created.meetings
    print(
        f"tournament {tournament_id}: {game.game_id}, {created.matches} matches of {args.games_per_match} "
        f"games, {created.seats} seats, every pair meets {low}-{high} times"
        + (", duplicate deals" if args.duplicate else "")
        + (", rated" if args.rated else ", unrated (its own standings; no ladder moves)")
    )
    if args.run:
        args.id, args.executor, args.workers, args.queue_ahead = tournament_id, "local", None, None
        return cmd_tournament_run(args)
    return 0


def _tournament(store: Store, tournament_id: int) -> tuple[int, int]:
    with store.session() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            raise StoreError(f"no tournament {tournament_id}")
        return len(tournament.matches), sum(match.status == MatchStatus.DONE for match in tournament.matches)


def executor_for(args: argparse.Namespace, store: Store) -> Executor:
    if args.executor == "celery":
        checked_broker_url()
        return CeleryWorkers(args.queue_ahead)
    return LocalPool(store.url, args.workers)


def cmd_tournament_run(args: argparse.Namespace) -> int:
    store = open_store(args)
    executor = executor_for(args, store)
    current_user(store, args)
    total, done = _tournament(store, args.id)
    bar = ProgressBar(total, label=f"tournament {args.id}")
    bar.update(done)
    started = time.perf_counter()
    scheduler = Scheduler(
        store,
        executor,
        only=args.id,
        on_progress=lambda finished, _: bar.update(finished),
        on_problem=bar.say,
    )
    try:
        scheduler.run()
    except KeyboardInterrupt:
        bar.close()
        left = (
            "the matches it was playing are pending again"
            if args.executor == "local"
            else "the workers play the matches already queued"
        )
        raise KeyboardInterrupt(
            f"tournament {args.id} stopped, {left}; `arena tournament run {args.id}` resumes it"
        ) from None
    bar.close()
    elapsed = time.perf_counter() - started
    print_status(store, args.id)
    with store.session() as session:
        tournament = session.get_one(Tournament, args.id)
        game, counts = tournament.game, is_rated(tournament)
    print()
    if counts:
        refit_ladder(store, game)
        print_ladder(store, game)
    else:
        print(f"tournament {args.id} is unrated: the standings above are its own, and the {game} ladder")
        print(f"counts only rated play (`arena ladder {game}` says what that is)")
    with store.session() as session:
        finished = session.query(Match).filter(
            Match.tournament_id == args.id, Match.status == MatchStatus.DONE
        )
        count = finished.count() - done
    if elapsed > 0 and count:
        print(f"{count} matches in {elapsed:.1f} s: {60 * count / elapsed:.1f} matches/minute")
    return _complete(store, args.id)


def cmd_scheduler(args: argparse.Namespace) -> int:
    """The scheduler service, until Ctrl-C or SIGTERM (a container's stop)."""
    store = open_store(args)
    executor = executor_for(args, store)

    def tournament_done(tournament_id: int) -> None:
        with store.session() as session:
            tournament = session.get_one(Tournament, tournament_id)
            game, rated = tournament.game, is_rated(tournament)
        counts = _counts(store, tournament_id)
        if rated:
            refit_ladder(store, game)
        summary = ", ".join(f"{status} {count}" for status, count in counts.items() if count)
        ladder = f"{game} ladder refitted" if rated else "unrated: no ladder moves"
        print(f"tournament {tournament_id} ({game}) has finished: {summary}; {ladder}", flush=True)

    said: dict[str, float] = {}

    def problem(text: str) -> None:
        """Said when it starts, then every 10 seconds while it lasts."""
        if time.monotonic() - said.get(text, -10.0) >= 10.0:
            said[text] = time.monotonic()
            print(text, file=sys.stderr, flush=True)

    if args.max_matches and args.no_ladder:
        raise UsageError("--max-matches counts ladder matches: it cannot go with --no-ladder")
    ladder = None if args.no_ladder else Feeder(store, max_matches=args.max_matches)
    signal.signal(signal.SIGTERM, _interrupt)
    scheduler = Scheduler(store, executor, on_problem=problem, on_done=tournament_done, ladder=ladder)
    then = ", and ladder matches with the room left" if ladder else ""
    goes = f"every tournament's matches go to {executor.where}{then}"
    print(f"scheduler {scheduler.name}: {goes}; Ctrl-C stops it", flush=True)
    try:
        scheduler.run()
    except KeyboardInterrupt:
        raise KeyboardInterrupt("scheduler stopped; a scheduler started again carries on") from None
    if ladder is not None and args.max_matches:
        games = sorted({game for game, follower in ladder.followers.items() if follower.counted})
        shown = ", ".join(f"`arena ladder {game} --stored`" for game in games) or "`arena ladder GAME`"
        print(f"{len(ladder.created)} ladder matches played; {shown} shows the ladder")
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _complete(store: Store, tournament_id: int) -> int:
    """0 if every match of the tournament is done; else says which are not, and why, and 1."""
    with store.session() as session:
        unfinished = session.scalars(
            select(Match)
            .where(Match.tournament_id == tournament_id, Match.status != MatchStatus.DONE)
            .order_by(Match.index)
        ).all()
        for match in unfinished:
            reason = f": {clip(match.error, 200)}" if match.error else ""
            print(f"match {match.id} {match.status}{reason}", file=sys.stderr)
        failed = sum(match.status == MatchStatus.FAILED_INFRASTRUCTURE for match in unfinished)
    if failed:
        retry = f"arena tournament retry {tournament_id}"
        print(f"{failed} matches failed: `{retry}` plays them again", file=sys.stderr)
    return 1 if unfinished else 0


def cmd_tournament_retry(args: argparse.Namespace) -> int:
    store = open_store(args)
    current_user(store, args)
    _tournament(store, args.id)
    with store.session() as session:
        retried = retry_failed(session, args.id)
    print(f"{len(retried)} failed matches of tournament {args.id} are pending again")
    return 0


def _counts(store: Store, tournament_id: int) -> dict[str, int]:
    with store.session() as session:
        return progress(session, tournament_id)


def print_status(store: Store, tournament_id: int) -> None:
    counts = _counts(store, tournament_id)
    with store.session() as session:
        rated = is_rated(session.get_one(Tournament, tournament_id))
    print("matches: " + ", ".join(f"{status} {count}" for status, count in counts.items() if count))
    print(
        "standings: rated (its matches move the ladder)"
        if rated
        else "standings: unrated (its own; no ladder moves)"
    )
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
    print_ladder(store, game.name)
    return 0


def print_ladder(store: Store, name: str) -> None:
    game = get_game(name)
    with store.session() as session:
        rows = ladder_rows(session, game.name)
        fitted = session.get(LadderState, game.name)
    if not rows:
        print(f"no {game.name} results yet: submit bots (`arena bot submit`) or run a tournament first")
        return
    when = (
        f"batch fit of {fitted.fit_games} games at {fitted.fitted_at:%Y-%m-%d %H:%M} UTC"
        if fitted and fitted.fitted_at
        else "live Elo only, no fit yet"
    )
    print(f"{game.title} ladder ({when}): Elo with 95% intervals")
    print("rated play only: " + "; ".join(TERMS))
    header = f"{'#':>3}  {'bot':<24} {'Elo':>7} {'+-95%':>7} {'games':>7}  {'P(better than next)':>19}"
    print(header)
    print("-" * len(header))
    ranked = [row for row in rows if row.rank is not None]
    for row in ranked:
        superiority = "" if row.superiority is None else f"{100 * row.superiority:.1f}%"
        halfwidth = "" if row.halfwidth is None else f"{row.halfwidth:.1f}"
        flag = " provisional" if row.provisional or len(ranked) < 2 else ""
        print(
            f"{row.rank:>3}  {row.bot:<24} {row.elo:>7.1f} {halfwidth:>7} {row.games:>7}  "
            f"{superiority:>19}{flag}"
        )
    flagged = [row for row in rows if row.flag]
    if flagged:
        print()
        print("inconsistent results: these bots' results depart from their rating by more than chance allows")
        for row in flagged:
            print(f"     {row.bot:<24} {row.flag}")
    unfitted = [row for row in rows if not row.fitted]
    if unfitted:
        print()
        print("not yet fitted: a live Elo from their first rated matches; the next fit ranks them")
        for row in unfitted:
            print(f"     {row.bot:<24} {row.live_elo:>7.1f} {'':>7} {row.live_games:>7}")
    apart = [row for row in rows if row.fitted and not row.connected]
    if apart:
        print()
        print("not yet connected: no chain of games links these bots to the ladder above, so they have")
        print("no rank there yet (the ladder's matchmaking plays them against it first)")
        for row in apart:
            print(f"     {row.bot:<24} {'':>7} {'':>7} {row.games:>7}")


def refit_ladder(store: Store, game: str) -> None:
    """The batch fit of ``game``'s stored results, written to the store."""
    from arena.ratings.ladder import refit

    with store.session() as session:
        refit(store.engine, session, game)


def checked_broker_url() -> str:
    """``$ARENA_BROKER_URL`` (default: the local Redis), refused at once unless its scheme names a
    broker transport (a mistyped one would fail deep in Celery, or keep the coordinator waiting);
    the message shows the scheme only, never a password in the URL."""
    from kombu.transport import TRANSPORT_ALIASES

    from arena.tournament.broker import broker_url

    url = broker_url()
    scheme, separator, _ = url.partition("://")
    if not separator or scheme not in TRANSPORT_ALIASES:
        named = f"an unknown scheme {scheme!r}" if separator else "no scheme"
        raise UsageError(f"ARENA_BROKER_URL has {named}: the broker is Redis, redis://HOST:6379/0")
    return url


def cmd_worker(args: argparse.Namespace) -> int:
    checked_broker_url()
    from workers.app import app

    argv = ["worker", "--loglevel", args.loglevel, "--concurrency", str(args.concurrency), "-Q", "matches"]
    if args.hostname:
        os.environ["ARENA_WORKER_NAME"] = args.hostname  # its pool processes inherit it
        argv += ["--hostname", f"{args.hostname}@%h"]
    app.worker_main(argv)
    return 0


def dispatch(args: argparse.Namespace) -> int:
    """Run one of the server-side commands."""
    handlers = {
        ("db", "upgrade"): cmd_db_upgrade,
        ("user", "create"): cmd_user_create,
        ("user", "password"): cmd_user_password,
        ("serve", ""): cmd_serve,
        ("bot", "submit"): cmd_bot_submit,
        ("tournament", "create"): cmd_tournament_create,
        ("tournament", "run"): cmd_tournament_run,
        ("tournament", "retry"): cmd_tournament_retry,
        ("tournament", "status"): cmd_tournament_status,
        ("scheduler", ""): cmd_scheduler,
        ("ladder", ""): cmd_ladder,
    }
    if args.command == "worker":
        return cmd_worker(args)
    action = str(getattr(args, f"{args.command}_command", ""))
    handler = handlers[(args.command, action)]
    with database_errors():
        return handler(args)


@contextlib.contextmanager
def database_errors() -> Iterator[None]:
    """A database that cannot be reached, or lacks the schema, as a ``StoreError`` in one line."""
    try:
        yield
    except (OperationalError, ProgrammingError) as error:
        problem = " ".join(str(error.orig).split())  # one line
        if isinstance(error, ProgrammingError) or "no such table" in problem:
            raise StoreError(f"the database is not ready ({problem}); run `arena db upgrade`") from error
        raise StoreError(f"cannot use the database: {problem}") from error
