"""The arguments of ``arena bot``; what they do is ``arena.cli.bot``."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli.args import later, with_store
from arena.cli.parsers.abtest import add_test_command


def register(name: str, parser: argparse.ArgumentParser) -> None:
    bot_commands = parser.add_subparsers(dest="bot_command", required=True, metavar="ACTION")
    validate_parser = bot_commands.add_parser(
        "validate",
        help="store a submission by content hash and play its validation match in the sandbox",
        description="A submission is a .py file, a .zip or a folder (give --entry when it holds "
        "several .py files). It is checked (sizes, no links or paths escaping it), stored read-only "
        "by content hash, and must then finish a validation match against built-in bots in the "
        "bubblewrap sandbox with every game ok. The bot's log is printed.",
    )
    validate_parser.add_argument("path", type=Path, help="the .py file, .zip or folder")
    validate_parser.add_argument("--game", required=True, help="the game the bot plays")
    validate_parser.add_argument("--entry", help="entry point inside a zip or folder, e.g. bot.py")
    validate_parser.add_argument(
        "--store", type=Path, default=Path("arena-data"), help="store folder (default ./arena-data)"
    )

    check = bot_commands.add_parser(
        "check",
        help="run a bot through scripted situations of its game and report each as pass or fail",
        description="The bot runs as its own process, as in a match, and is asked in situations random "
        "play rarely reaches: every phase of the game, the largest observations, a decision near its "
        "deadline, playing on after a fault. Exit status 0 when all pass, 1 otherwise.",
    )
    check.add_argument("path", type=Path, help="the bot: a .py file, or a folder with an arena-bot.toml")
    check.add_argument("--game", required=True, help="the game the bot plays")
    check.add_argument(
        "--sandbox",
        choices=["bubblewrap", "none"],
        default="bubblewrap",
        help="how the bot process is isolated (default bubblewrap; none only for a bot you trust)",
    )

    submit_parser = with_store(
        bot_commands.add_parser(
            "submit",
            help="submit a bot version: stored, validated in the sandbox, then on its game's ladder "
            "and free to enter tournaments",
        )
    )
    submit_parser.add_argument("path", type=Path, help="the .py file, .zip or folder")
    submit_parser.add_argument("--name", required=True, help="the bot's name (yours once taken)")
    submit_parser.add_argument("--game", required=True)
    submit_parser.add_argument("--entry", help="entry point inside a zip or folder")
    validate_parser.set_defaults(handler=later("bot", "cmd_validate"))
    check.set_defaults(handler=later("bot", "cmd_check"))
    submit_parser.set_defaults(handler=later("bot", "cmd_submit"))
    add_test_command(bot_commands)
