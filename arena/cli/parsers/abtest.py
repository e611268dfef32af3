"""The arguments of ``arena bot test NEW --against OLD --game G``; what they do is ``arena.cli.abtest``."""

from __future__ import annotations

import argparse
import math
from typing import Any

from arena.cli.args import later, positive, with_executor, with_store
from arena.ladder.shape import LADDER_GAMES
from arena.tournament.limits import DEFAULT_TEST_GAMES


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def add_test_command(bot_commands: Any) -> None:
    """Add ``arena bot test NEW --against OLD --game G``."""
    test = with_store(
        bot_commands.add_parser(
            "test",
            help="is NEW better than OLD? play them until a sequential test (SPRT) says so",
            description="Plays duplicate-deal matches of NEW against OLD (unrated, on the executor given, "
            "or the scheduler service's when one runs) and runs a sequential probability ratio test after "
            "every match: H0, NEW is ELO0 Elo better, against H1, ELO1 better. It stops when H1 is accepted "
            "(better), H0 is (worse, or no difference), or at the game cap, printing the LLR, its bounds, "
            "the games and the Elo difference with its 95% interval as it goes.",
            epilog="BOT: builtin:NAME, a stored bot's name (its newest validated version), or NAME@VERSION "
            "(a version id, as the bot's page lists them): your own bots, or bots open to others.",
        )
    )
    test.add_argument("new", metavar="NEW", help="the bot under test")
    test.add_argument("--against", required=True, metavar="OLD", help="the bot to beat")
    test.add_argument("--game", required=True)
    test.add_argument(
        "--panel",
        nargs="+",
        default=[],
        metavar="BOT",
        help="free-for-all games: opponents who play NEW's matches and, seated alike on the same deals, "
        "OLD's (default: NEW against OLD, two seats)",
    )
    test.add_argument("--elo0", type=_number, default=0.0, help="H0: NEW is this much better (default 0)")
    test.add_argument("--elo1", type=_number, default=5.0, help="H1: NEW is this much better (default 5)")
    test.add_argument(
        "--alpha", type=_number, default=0.05, help="chance of 'better' under H0 (default 0.05)"
    )
    test.add_argument("--beta", type=_number, default=0.05, help="chance of missing H1 (default 0.05)")
    test.add_argument(
        "--max-games",
        type=positive,
        default=DEFAULT_TEST_GAMES,
        metavar="N",
        help="game cap (default %(default)s)",
    )
    test.add_argument(
        "--games-per-match",
        type=positive,
        default=LADDER_GAMES,
        help="games in each match, a multiple of the seats (default %(default)s, as a ladder match)",
    )
    with_executor(test)
    test.set_defaults(handler=later("abtest", "cmd_bot_test"))
