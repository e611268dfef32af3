"""Plays Edible's first listed action over the protocol itself (no SDK) and exits when the arena
sends it a Fault."""

import asyncio
import os
import sys

import grpc

from arena.wire.codec import codec_for
from arena.wire.v1 import arena_pb2 as pb
from arena.wire.v1 import arena_pb2_grpc as pb_grpc


async def main() -> None:
    codec = codec_for("edible")
    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        await call.write(pb.BotMessage(hello=pb.Hello(token=os.environ["ARENA_TOKEN"], protocol_version=1)))
        while isinstance(message := await call.read(), pb.ArenaMessage):  # until grpc.aio.EOF
            kind = message.WhichOneof("kind")
            if kind == "decision":
                first = codec.decode_legal(message.decision.legal_actions)[0]
                action = codec.encode_action(first)
                action.decision_id = message.decision.decision_id
                await call.write(pb.BotMessage(action=action))
            elif kind == "fault":
                sys.exit(f"fault_quitter: the arena said {message.fault.status}; quitting")
            elif kind == "match_end":
                break


if __name__ == "__main__":
    asyncio.run(main())
