"""Reads the metadata the SDK hides from bots: every decision request's id and game index,
printed as ``IDS <game index> <decision id>``. Ids that counted every seat's decisions told a bot
how often the others were asked (a kozel molodka question is never shown); it plays randomly."""

import sys
from typing import Any

import sdk.client as client
from arena.games.edible.bots import RandomBot
from sdk import run

original = client._decide


def watching(*arguments: Any, **keywords: Any) -> Any:
    request = arguments[-1]  # the decision request, after the bot and the SDK's decoders
    print(f"IDS {request.game_index} {request.decision_id}", file=sys.stderr, flush=True)
    return original(*arguments, **keywords)


client._decide = watching

if __name__ == "__main__":
    run(RandomBot())
