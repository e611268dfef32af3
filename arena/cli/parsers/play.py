"""The arguments of ``arena play``; what they do is ``arena.cli.play``."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.bots import WHAT_A_BOT_IS
from arena.cli.args import later, not_negative, positive
from arena.runner.terms import FaultPolicy, Limits


def register(name: str, play: argparse.ArgumentParser) -> None:
    play.description = (
        "Play a match: a series of games among the given bots, one bot per seat. "
        "By default every bot is its own process talking gRPC, exactly as on the platform."
    )
    play.epilog = f"BOT: {WHAT_A_BOT_IS}."
    play.add_argument("game", help="game name, e.g. edible (or edible@1 for an exact rules version)")
    play.add_argument("bots", nargs="+", metavar="BOT", help="one bot per seat, in seat order")
    play.add_argument("--games", type=positive, default=100, help="games in the match (default 100)")
    play.add_argument(
        "--seed",
        type=not_negative,
        help="fix every deal and the bots' own seeds, to replay a match exactly (default: a secret "
        "128-bit seed; note that a bot can work out a chosen seed, and then every hidden card)",
    )
    play.add_argument("--in-process", action="store_true", help="trusted fast path: bots run in this process")
    play.add_argument(
        "--sandbox",
        choices=["bubblewrap", "none"],
        default="bubblewrap",
        help="how bot processes are isolated (default bubblewrap; none only for bots you trust)",
    )
    play.add_argument(
        "--no-rotate", action="store_true", help="keep seats fixed instead of rotating each game"
    )
    play.add_argument(
        "--decision-ms", type=positive, default=Limits.decision_ms, help="per-decision time (ms)"
    )
    play.add_argument("--bank-ms", type=not_negative, default=Limits.bank_ms, help="match time bank (ms)")
    play.add_argument(
        "--max-faults", type=positive, default=FaultPolicy.max_faults, help="faults that forfeit the match"
    )
    play.add_argument("--config", default="{}", help="game config as JSON, e.g. '{\"action_cap\": 500}'")
    play.add_argument(
        "--replays", type=Path, default=Path("replays"), help="folder for the replay (default ./replays)"
    )
    play.add_argument(
        "--logs", type=Path, default=None, help="folder for each bot's log (default: beside the replay)"
    )
    play.add_argument("--quiet", action="store_true", help="no progress bar")
    play.set_defaults(handler=later("play", "cmd_play"))
