"""Command-line arguments of the tournament commands (kept free of server imports, so that
``arena play`` works on a bot author's light install)."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable
from typing import Any, NoReturn

from arena.runner.terms import GAMES_PER_MATCH

SERVER_COMMANDS = ("db", "user", "tournament", "scheduler", "worker", "ladder", "serve")


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: what is wrong, and where the help is."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def whole_number(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` to ``maximum`` (if given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} must be at least {minimum}")
        if maximum is not None and value > maximum:
            raise argparse.ArgumentTypeError(f"{value} must be at most {maximum}")
        return value

    return parse


positive = whole_number(1)


def with_store(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--db", help="database URL (default $ARENA_DATABASE_URL, else SQLite in $ARENA_HOME)")
    parser.add_argument("--token", help="your API token (default $ARENA_API_TOKEN)")
    return parser


def add_commands(commands: Any) -> None:
    """Add the ``db``, ``user``, ``tournament`` and ``worker`` subcommands."""

    db = commands.add_parser("db", help="database maintenance")
    db_commands = db.add_subparsers(dest="db_command", required=True, metavar="ACTION")
    with_store(db_commands.add_parser("upgrade", help="create or migrate the schema to the newest version"))

    user = commands.add_parser("user", help="accounts and API tokens")
    user_commands = user.add_subparsers(dest="user_command", required=True, metavar="ACTION")
    create_user_parser = with_store(user_commands.add_parser("create", help="create a user (admins only)"))
    create_user_parser.add_argument("name")
    create_user_parser.add_argument("--admin", action="store_true")
    password = with_store(
        user_commands.add_parser(
            "password",
            help="set a user's web password (yours, or anyone's as an admin)",
            description="The password comes from $ARENA_PASSWORD, else from standard input when it is not "
            "a terminal, else it is asked for twice.",
        )
    )
    password.add_argument("name")

    tournament = commands.add_parser("tournament", help="create, run and follow tournaments")
    t_commands = tournament.add_subparsers(dest="tournament_command", required=True, metavar="ACTION")
    create = with_store(t_commands.add_parser("create", help="schedule a tournament among stored bots"))
    create.add_argument("--game", required=True)
    create.add_argument("--bots", nargs="+", required=True, help="bot names, or builtin:NAME")
    create.add_argument(
        "--kind",
        choices=["round_robin", "gauntlet"],
        default="round_robin",
        help="round_robin (kozel: teams), or gauntlet: the first bot against the rest",
    )
    create.add_argument("--seats", type=positive, help="seats per match (free-for-all games)")
    create.add_argument("--games-per-match", type=positive, default=GAMES_PER_MATCH)
    create.add_argument("--duplicate", action="store_true", help="replay each deal with every seat rotation")
    create.add_argument("--rounds", type=positive, default=1, help="how often every pairing is played")
    create.add_argument(
        "--seed",
        type=int,
        help="fix every deal (default: a secret 128-bit seed; a chosen seed can be guessed by a bot, "
        "which then knows every hidden card)",
    )
    create.add_argument("--config", type=_json_object, default={}, help="game config as JSON")
    create.add_argument(
        "--rated",
        action="store_true",
        help="admins: its matches move the game's ladder (needs a secret seed and the default config); "
        "without it a tournament is unrated and has only its own standings",
    )
    create.add_argument("--run", action="store_true", help="run it at once on the local process pool")
    run = with_store(
        t_commands.add_parser(
            "run",
            help="play a tournament's pending matches and follow its progress",
            description="While a scheduler service (`arena scheduler`) runs, this only follows the "
            "tournament's progress; when none runs, it plays the tournament itself on the executor given.",
        )
    )
    run.add_argument("id", type=positive)
    with_executor(run)
    retry = with_store(
        t_commands.add_parser("retry", help="send a tournament's failed matches back to be played")
    )
    retry.add_argument("id", type=int)
    status = with_store(t_commands.add_parser("status", help="progress and standings"))
    status.add_argument("id", type=positive)

    ladder = with_store(
        commands.add_parser("ladder", help="the rating ladder of a game: Elo +- 95%%, games, provisional")
    )
    ladder.add_argument("game", help="e.g. edible")
    ladder.add_argument(
        "--stored",
        action="store_true",
        help="print the stored ladder (last refit plus live Elo since) instead of refitting first",
    )

    serve = with_store(
        commands.add_parser(
            "serve",
            help="run the web app: ladders, bot pages, replays, tournaments, submissions, JSON API",
            description="Serves http://HOST:PORT/ (API docs at /api/docs, OpenAPI at /api/openapi.json).",
        )
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=whole_number(1, 65535), default=8000)
    serve.add_argument(
        "--executor",
        choices=["local", "celery"],
        default="local",
        help="local (default): the web app schedules matches on a local process pool; celery: an "
        "`arena scheduler --executor celery` service sends them to the Celery workers",
    )
    serve.add_argument("--workers", type=positive, help="local match processes (default: one per core)")
    serve.add_argument(
        "--no-ladder",
        action="store_true",
        help="local: play tournaments only (by default the server also plays the living ladder)",
    )
    serve.add_argument("--secure-cookies", action="store_true", help="send cookies over HTTPS only")
    serve.add_argument(
        "--open", metavar="PATH", help="open this page in a browser once serving, e.g. /ladder/edible"
    )

    scheduler = with_store(
        commands.add_parser(
            "scheduler",
            help="the service that plays every tournament's matches, fairly, recovers lost ones, and "
            "plays the living ladder",
            description="Runs until stopped (Ctrl-C or SIGTERM). One scheduler works at a time; a second "
            "one stands by and takes over within seconds when the first stops. Tournaments go first; "
            "room left over plays ladder matches between every game's submitted bots, chosen where a "
            "result tells the ladder most, and the ladder follows each match as it lands.",
        )
    )
    with_executor(scheduler)
    scheduler.add_argument(
        "--max-matches",
        type=positive,
        metavar="N",
        help="add N ladder matches, then stop once they (and nothing else) are played",
    )
    scheduler.add_argument(
        "--no-ladder", action="store_true", help="play tournaments only: no ladder matches"
    )

    worker = commands.add_parser("worker", help="run a Celery worker (broker: $ARENA_BROKER_URL)")
    worker.add_argument("--concurrency", type=positive, default=os.cpu_count() or 1)
    worker.add_argument("--loglevel", default="INFO")
    worker.add_argument(
        "--hostname",
        help="this worker's name, in Celery's tools and on the matches it plays "
        "(default: the machine's; give each worker on one machine its own)",
    )


def with_executor(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--executor",
        choices=["local", "celery"],
        default="local",
        help="local process pool (default), or the Celery workers behind $ARENA_BROKER_URL",
    )
    parser.add_argument("--workers", type=positive, help="local processes (default: one per core)")
    parser.add_argument(
        "--queue-ahead",
        type=positive,
        default=4,
        help="celery: matches waiting in the broker's queue at most, so that the order matches run in "
        "stays fair between tournaments (default 4)",
    )


def _json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value
