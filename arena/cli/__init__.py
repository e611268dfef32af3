"""The ``arena`` command: one module per command group, each loaded only when its command runs.

Every group has its arguments in ``arena.cli.parsers.<group>``, whose ``register(name, parser)``
gives the command named ``name`` its arguments and, on each action, the function that runs it
(``parser.set_defaults(handler=later("<group>", "cmd_..."))``), which is ``arena.cli.<group>``'s
and loaded only when the action runs. ``GROUPS`` names each command's group and one-line help, so
that ``arena --help`` loads no group, a command's ``--help`` or bad argument loads none of what it
needs to run, and ``arena play`` loads no server library. Bad input and Ctrl-C end a command with one line on
stderr, never a traceback: exit status 2 for bad input, 3 for an infrastructure fault, 130 for an
interruption.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from arena.bots import BotLoadError
from arena.cli.args import Parser, UsageError
from arena.games.base import BadConfig
from arena.manifest import MANIFEST
from arena.runner.replay import ReplayError
from arena.sandbox.base import SandboxError
from arena.store.errors import StoreError
from arena.submissions import SubmissionError
from arena.text import terminal_guard

GROUPS: dict[str, tuple[str, str]] = {
    "games": ("games", "list the games, their seats, built-in bots and rules pages"),
    "runtimes": ("games", f"list the languages a bot may be written in here (what {MANIFEST} may run)"),
    "play": ("play", "play a match between bots on this machine"),
    "bot": ("bot", "check and store bot submissions"),
    "db": ("accounts", "database maintenance"),
    "user": ("accounts", "accounts and API tokens"),
    "tournament": ("tournament", "create, run and follow tournaments"),
    "ladder": ("tournament", "the rating ladder of a game: Elo +- 95%%, games, provisional"),
    "serve": ("serve", "run the web app: ladders, bot pages, replays, tournaments, submissions, JSON API"),
    "scheduler": (
        "tournament",
        "the service that plays every tournament's matches, fairly, recovers lost ones, and plays the "
        "living ladder",
    ),
    "worker": ("worker", "run a Celery worker (broker: $ARENA_BROKER_URL)"),
    "match": ("match", "a stored match: list a tournament's, show or save its replay, read a seat's log"),
    "replay": ("replay", "inspect or verify a replay file"),
}
"""Each command: its group's module in this package, and its help line."""

EXAMPLES = """examples:
  arena games
  arena play edible builtin:heuristic builtin:random builtin:random --games 200 --seed 7
  arena play edible my_bot.py builtin:random --in-process
  arena replay show replays/edible-1a2b3c4d5e6f.json --game 0
  arena replay verify replays/edible-1a2b3c4d5e6f.json
  arena match save 12 && arena replay verify match-12-replay.json
"""


def build_parser(commands: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The ``arena`` parser, with the arguments of ``commands`` (default: every command's)."""
    parser = Parser(
        prog="arena",
        description="Card Arena: play bot matches for Edible, Believe and Kozel.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (module, summary) in GROUPS.items():
        command = subparsers.add_parser(name, help=summary)
        if commands is None or name in commands:
            importlib.import_module(f"{__name__}.parsers.{module}").register(name, command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. No control character but newline reaches stdout or stderr, whoever wrote the
    text (a bot's name or fault detail in a replay, a bot's log): see ``arena.text.terminal_guard``."""
    with terminal_guard():
        return _main(sys.argv[1:] if argv is None else list(argv))


def _main(argv: list[str]) -> int:
    try:
        args = build_parser(argv[:1]).parse_args(argv)
        status: int = args.handler(args)
        return status
    except (UsageError, BadConfig, BotLoadError, ReplayError, SubmissionError, StoreError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a file or folder named on the command line, or a server, out of reach
        where = f"{error.filename}: " if error.filename else ""
        print(f"arena: error: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    except SandboxError as error:
        print(f"arena: infrastructure error (not the bots' fault): {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt as interrupt:
        print(f"arena: interrupted{f': {interrupt}' if str(interrupt) else ''}", file=sys.stderr)
        return 130
