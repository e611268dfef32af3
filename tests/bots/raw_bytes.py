"""Sends bytes that are not a protobuf message at all after a proper Hello."""

import asyncio
import os

import grpc

from arena.wire.v1 import arena_pb2 as pb


async def main() -> None:
    async with grpc.aio.insecure_channel(os.environ["ARENA_ADDRESS"]) as channel:
        play = channel.stream_stream(
            "/arena.wire.v1.BotArena/Play",
            request_serializer=lambda raw: raw,
            response_deserializer=pb.ArenaMessage.FromString,
        )
        call = play()
        hello = pb.BotMessage(hello=pb.Hello(token=os.environ["ARENA_TOKEN"], protocol_version=1))
        await call.write(hello.SerializeToString())
        while isinstance(message := await call.read(), pb.ArenaMessage):  # until grpc.aio.EOF
            if message.WhichOneof("kind") == "decision":
                await call.write(b"\xff\xfe garbage \x00\x01")
            elif message.WhichOneof("kind") == "match_end":
                break


if __name__ == "__main__":
    asyncio.run(main())
