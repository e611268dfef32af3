"""``python -m sdk SPEC --game GAME``: run a built-in bot, or a bot file's one Bot class, as a bot process.

The arena starts built-in bots this way (bot files run as ``python FILE``). ``SPEC`` is
``builtin:NAME`` or the path of a Python file that defines one ``Bot`` subclass. Address and
token come from the environment (``ARENA_ADDRESS``, ``ARENA_TOKEN``) or ``--address``/``--token``.
"""

import argparse

from arena.bots import load_bot
from sdk.client import run


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m sdk", description=__doc__.splitlines()[0])
    parser.add_argument("spec", help="builtin:NAME or path/to/bot.py")
    parser.add_argument("--game", required=True, help="the game the bot plays, e.g. edible")
    args, rest = parser.parse_known_args()
    run(load_bot(args.game, args.spec), rest)


if __name__ == "__main__":
    main()
