"""The arguments of ``arena replay``; what they do is ``arena.cli.replay``."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.bots import WHAT_A_BOT_IS
from arena.cli.args import later, not_negative, positive


def register(name: str, parser: argparse.ArgumentParser) -> None:
    replay_commands = parser.add_subparsers(dest="replay_command", required=True, metavar="ACTION")
    show = replay_commands.add_parser("show", help="print a replay readably")
    show.add_argument("file", type=Path)
    show.add_argument("--game", type=int, action="append", help="only this game index (repeatable)")
    verify = replay_commands.add_parser("verify", help="re-execute a replay and say whether it matches")
    verify.add_argument("file", type=Path)
    again = replay_commands.add_parser(
        "rerun",
        help="replay a recorded match's deals with your bot in one seat",
        description="Deal a recorded match's games again (same game version, config, seed and "
        "rotation) with BOT in one seat, run as in `arena play`; every other seat plays its recorded "
        "decisions while they are legal, then a built-in bot for the rest of that game.",
        epilog=f"BOT: {WHAT_A_BOT_IS}.",
    )
    again.add_argument("file", type=Path)
    again.add_argument("--seat", type=not_negative, required=True, help="the seat, as in the first game")
    again.add_argument("--bot", required=True, help="the bot to play that seat")
    again.add_argument("--others", default="builtin:random", help="the other seats' fallback bot")
    again.add_argument("--games", type=positive, help="only the first N games (default all)")
    again.add_argument("--sandbox", choices=["bubblewrap", "none"], default="bubblewrap")
    again.add_argument("--replays", type=Path, default=Path("replays"), help="folder for the new replay")
    again.add_argument("--quiet", action="store_true", help="no progress bar")
    show.set_defaults(handler=later("replay", "cmd_show"))
    verify.set_defaults(handler=later("replay", "cmd_verify"))
    again.set_defaults(handler=later("replay", "cmd_rerun"))
