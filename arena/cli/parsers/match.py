"""The arguments of ``arena match``; what they do is ``arena.cli.match``."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena.cli.args import later, positive, whole_number, with_store

WHERE = (
    "It reads the store (--db, else $ARENA_DATABASE_URL, else SQLite in $ARENA_HOME), whichever "
    "host played the match."
)


def register(name: str, parser: argparse.ArgumentParser) -> None:
    parser.description = f"Matches that tournaments and the ladder played, from the store. {WHERE}"
    actions = parser.add_subparsers(dest="match_command", required=True, metavar="ACTION")

    def action(name: str, summary: str, description: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=summary, description=f"{description} {WHERE}")
        return with_store(parser)

    listing = action(
        "list",
        "a tournament's matches: id, status, bots in seat order",
        "The matches of a tournament (a ladder's standing one: its newest 100).",
    )
    listing.add_argument("tournament", type=positive, help="the tournament's id")
    show = action(
        "show",
        "print a finished match's replay readably, as `arena replay show` prints a file",
        "Every decision, fault and result of a finished match.",
    )
    show.add_argument("id", type=positive, help="the match's id (`arena match list TOURNAMENT`)")
    show.add_argument("--game", type=int, action="append", help="only this game index (repeatable)")
    save = action(
        "save",
        "write a finished match's replay file, for `arena replay show`, `verify` and `rerun`",
        "The replay file as recorded, byte for byte (the web app's download).",
    )
    save.add_argument("id", type=positive, help="the match's id")
    save.add_argument(
        "file",
        type=Path,
        nargs="?",
        help="where to write it (default ./match-ID-replay.json; a folder: that name in it)",
    )
    save.add_argument("--force", action="store_true", help="overwrite the file if it exists")
    log = action(
        "log",
        "print a seat's bot log (its stderr): for the bot's owner and admins",
        "A finished match's log of one seat's bot, for that bot's owner and admins, as on the web "
        "app: you are the user of --token (or $ARENA_API_TOKEN; on the embedded default without one, "
        "its local admin).",
    )
    log.add_argument("id", type=positive, help="the match's id")
    log.add_argument(
        "--seat",
        type=whole_number(0),
        required=True,
        help="the bot's place in the match's seat order, from 0 (as `arena match list` lists its "
        "bots; its agent number in the replay)",
    )
    listing.set_defaults(handler=later("match", "cmd_list"))
    show.set_defaults(handler=later("match", "cmd_show"))
    save.set_defaults(handler=later("match", "cmd_save"))
    log.set_defaults(handler=later("match", "cmd_log"))
