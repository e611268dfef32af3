"""What the ``arena`` command's groups share of their arguments: the parser, number types, and the
store and executor options."""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Callable
from typing import Any, NoReturn

from arena.games.base import Game, GameConfig


class UsageError(Exception):
    """Bad command-line input; printed as one line, exit status 2."""


def later(module: str, handler: str) -> Callable[[argparse.Namespace], int]:
    """The function ``handler`` of ``arena.cli.<module>``, loaded only when its command runs: a
    command's ``--help`` or bad argument loads nothing of what the command needs to run."""

    def run(args: argparse.Namespace) -> int:
        command: Callable[[argparse.Namespace], int] = getattr(
            importlib.import_module(f"arena.cli.{module}"), handler
        )
        return command(args)

    return run


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
not_negative = whole_number(0)


def with_store(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument("--db", help="database URL (default $ARENA_DATABASE_URL, else SQLite in $ARENA_HOME)")
    parser.add_argument("--token", help="your API token (default $ARENA_API_TOKEN)")
    return parser


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


def json_object(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise argparse.ArgumentTypeError(f"not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("must be a JSON object")
    return value


def parse_config(game: Game[Any, Any, Any], text: str) -> GameConfig:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"--config is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise UsageError("--config must be a JSON object")
    return game.config_type.from_dict(data)
