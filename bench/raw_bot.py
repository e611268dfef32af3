"""A bot that decodes nothing: it answers each decision with one of the legal actions its request lists.

It picks one at random and sends it as the very message it came in. ``bench/run.py`` plays a match of
these to part what a decision costs beyond the transport floor: the arena's side alone (no SDK, no
bot's code), and the rest, the SDK's and the bot's.
"""

import random

from echo_bot import answer

from arena import loop
from arena.wire.v1 import arena_pb2 as pb

CHOICE = random.Random(1)


def listed_action(request: pb.DecisionRequest) -> pb.BotMessage:
    listed = request.legal_actions
    reply = pb.BotMessage(action=listed[CHOICE.randrange(len(listed))])
    reply.action.decision_id = request.decision_id
    return reply


if __name__ == "__main__":
    loop.run(answer(listed_action))
