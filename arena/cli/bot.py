"""``arena bot``: check a bot, validate a submission in the sandbox, submit it to the platform."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.checks.command import check_command
from arena.cli.abtest import add_test_command
from arena.cli.args import with_store
from arena.cli.play import choose_sandbox
from arena.cli.services import current_user, open_store, uses_store
from arena.games.registry import get_game
from arena.sandbox.backends import make_sandbox
from arena.store.db import data_home
from arena.submissions import store_submission
from arena.text import escape_controls
from arena.tournament.service import submit
from arena.tournament.validation import validate


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
    validate_parser.set_defaults(handler=cmd_validate)
    check.set_defaults(handler=cmd_check)
    submit_parser.set_defaults(handler=uses_store(cmd_submit))
    add_test_command(bot_commands)


def cmd_check(args: argparse.Namespace) -> int:
    return check_command(args.path, args.game, lambda: choose_sandbox(args.sandbox))


def cmd_validate(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    artifact = store_submission(args.path, args.store, args.entry)
    print(f"stored: {artifact.folder} (sha256 {artifact.digest}, entry {artifact.entry})")
    report = validate(artifact, game.name, make_sandbox("bubblewrap"))
    print("---- validation log ----")
    print(report.log.rstrip() or "(empty)")
    print("------------------------")
    print(f"validation {'PASSED' if report.passed else 'FAILED'}: {report.summary()}")
    return 0 if report.passed else 1


def cmd_submit(args: argparse.Namespace) -> int:
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
