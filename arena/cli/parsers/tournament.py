"""The arguments of ``arena tournament``, ``arena ladder`` and ``arena scheduler``; what they do
is ``arena.cli.tournament``."""

from __future__ import annotations

import argparse

from arena.cli.args import json_object, later, positive, with_executor, with_store
from arena.runner.terms import GAMES_PER_MATCH


def register(name: str, parser: argparse.ArgumentParser) -> None:
    if name == "ladder":
        _ladder_arguments(parser)
    elif name == "scheduler":
        _scheduler_arguments(parser)
    else:
        _tournament_arguments(parser)


def _tournament_arguments(parser: argparse.ArgumentParser) -> None:
    t_commands = parser.add_subparsers(dest="tournament_command", required=True, metavar="ACTION")
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
    create.add_argument("--config", type=json_object, default={}, help="game config as JSON")
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
    create.set_defaults(handler=later("tournament", "cmd_tournament_create"))
    run.set_defaults(handler=later("tournament", "cmd_tournament_run"))
    retry.set_defaults(handler=later("tournament", "cmd_tournament_retry"))
    status.set_defaults(handler=later("tournament", "cmd_tournament_status"))


def _ladder_arguments(parser: argparse.ArgumentParser) -> None:
    with_store(parser)
    parser.add_argument("game", help="e.g. edible")
    parser.add_argument(
        "--stored",
        action="store_true",
        help="print the stored ladder (last refit plus live Elo since) instead of refitting first",
    )
    parser.set_defaults(handler=later("tournament", "cmd_ladder"))


def _scheduler_arguments(parser: argparse.ArgumentParser) -> None:
    with_store(parser)
    parser.description = (
        "Runs until stopped (Ctrl-C or SIGTERM). One scheduler works at a time; a second "
        "one stands by and takes over within seconds when the first stops. Tournaments go first; "
        "room left over plays ladder matches between every game's submitted bots, chosen where a "
        "result tells the ladder most, and the ladder follows each match as it lands."
    )
    with_executor(parser)
    parser.add_argument(
        "--max-matches",
        type=positive,
        metavar="N",
        help="add N ladder matches, then stop once they (and nothing else) are played",
    )
    parser.add_argument("--no-ladder", action="store_true", help="play tournaments only: no ladder matches")
    parser.set_defaults(handler=later("tournament", "cmd_scheduler"))
