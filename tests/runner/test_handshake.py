"""The arena refuses streams that do not open with a valid Hello."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from arena.transport.server import ArenaServer
from arena.wire.v1 import arena_pb2 as pb
from arena.wire.v1 import arena_pb2_grpc as pb_grpc


async def _dial(server: ArenaServer, first: pb.BotMessage) -> grpc.StatusCode:
    async with grpc.aio.insecure_channel(server.address) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        await call.write(first)
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await call.read()
        return error.value.code()


def test_bad_tokens_versions_and_openings_are_refused() -> None:
    async def scenario() -> list[grpc.StatusCode]:
        async with ArenaServer() as server:
            token, connected = server.expect()
            codes = [
                await _dial(server, pb.BotMessage(hello=pb.Hello(token="forged", protocol_version=1))),
                await _dial(server, pb.BotMessage(hello=pb.Hello(token=token, protocol_version=2))),
                await _dial(server, pb.BotMessage(action=pb.Action(decision_id=1))),
            ]
            assert not connected.done()
            return codes

    assert asyncio.run(scenario()) == [
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.INVALID_ARGUMENT,
    ]


def test_a_token_works_once() -> None:
    async def scenario() -> grpc.StatusCode:
        async with ArenaServer() as server:
            token, connected = server.expect()
            hello = pb.BotMessage(hello=pb.Hello(token=token, protocol_version=1))
            async with grpc.aio.insecure_channel(server.address) as channel:
                first = pb_grpc.BotArenaStub(channel).Play()
                await first.write(hello)
                session = await asyncio.wait_for(connected, 5)
                code = await _dial(server, hello)
                session.close()
                first.cancel()
            return code

    assert asyncio.run(scenario()) is grpc.StatusCode.PERMISSION_DENIED
