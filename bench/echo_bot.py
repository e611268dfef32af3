"""The transport floor's client: dials the arena like a bot and answers with a fixed action.

The action is pre-encoded, and the client does no decoding and no thinking at all. ``answer`` dials
and answers for ``raw_bot.py`` too.
"""

import os
from collections.abc import Callable

import arena.transport.grpc_io  # noqa: F401  (before grpc: as the SDK configures it)

# isort: split
import grpc

from arena import loop
from arena.transport.server import PROTOCOL_VERSION
from arena.wire.v1 import arena_pb2 as pb
from arena.wire.v1 import arena_pb2_grpc as pb_grpc


async def answer(reply_to: Callable[[pb.DecisionRequest], pb.BotMessage]) -> None:
    """Dial the arena as a bot does and answer each decision with ``reply_to(request)``, until the
    match ends; every other message is read and left."""
    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        hello = pb.Hello(token=os.environ["ARENA_TOKEN"], protocol_version=PROTOCOL_VERSION)
        await call.write(pb.BotMessage(hello=hello))
        while isinstance(message := await call.read(), pb.ArenaMessage):  # until grpc.aio.EOF
            kind = message.WhichOneof("kind")
            if kind == "match_end":
                break
            if kind == "decision":
                await call.write(reply_to(message.decision))


if __name__ == "__main__":
    reply = pb.BotMessage(action=pb.Action(decision_id=1))
    loop.run(answer(lambda request: reply))
