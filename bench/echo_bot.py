"""The transport floor's client: dials the arena like a bot and answers every message with a
fixed, pre-encoded action, doing no decoding and no thinking at all."""

import os

import arena.transport.grpc_io  # noqa: F401  (before grpc: as the SDK configures it)

# isort: split
import grpc

from arena import loop
from arena.wire.v1 import arena_pb2 as pb
from arena.wire.v1 import arena_pb2_grpc as pb_grpc


async def main() -> None:
    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        await call.write(pb.BotMessage(hello=pb.Hello(token=os.environ["ARENA_TOKEN"], protocol_version=1)))
        reply = pb.BotMessage(action=pb.Action(decision_id=1))
        while (message := await call.read()) is not grpc.aio.EOF:
            if message.WhichOneof("kind") == "match_end":
                break
            await call.write(reply)


if __name__ == "__main__":
    loop.run(main())
