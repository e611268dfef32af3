"""Speaks the protocol's framing but sends an Action with no move in it (no SDK)."""

import asyncio
import os

import grpc

from arena.wire.v1 import arena_pb2 as pb
from arena.wire.v1 import arena_pb2_grpc as pb_grpc


async def main() -> None:
    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        await call.write(pb.BotMessage(hello=pb.Hello(token=os.environ["ARENA_TOKEN"], protocol_version=1)))
        while isinstance(message := await call.read(), pb.ArenaMessage):  # until grpc.aio.EOF
            if message.WhichOneof("kind") == "decision":
                empty = pb.Action(decision_id=message.decision.decision_id)
                await call.write(pb.BotMessage(action=empty))
            elif message.WhichOneof("kind") == "match_end":
                break


if __name__ == "__main__":
    asyncio.run(main())
