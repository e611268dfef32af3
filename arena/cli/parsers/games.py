"""The arguments of ``arena games`` and ``arena runtimes``; what they do is ``arena.cli.games``."""

from __future__ import annotations

import argparse

from arena.cli.args import later
from arena.manifest import MANIFEST

RUNTIMES_DESCRIPTION = (
    f"A bot in another language than Python is a folder (or zip) with an {MANIFEST} "
    'naming its command, e.g. run = ["node", "bot.js"]: a runtime installed here, or a program '
    'of its own such as a static binary (run = ["./bot"]).'
)


def register(name: str, parser: argparse.ArgumentParser) -> None:
    if name == "runtimes":
        parser.description = RUNTIMES_DESCRIPTION
        parser.set_defaults(handler=later("games", "cmd_runtimes"))
    else:
        parser.set_defaults(handler=later("games", "cmd_games"))
