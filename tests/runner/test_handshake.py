"""The arena refuses streams that do not open with a valid Hello."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest

from arena.transport.server import HELLO_S, ArenaServer
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


async def _silent(server: ArenaServer) -> tuple[grpc.StatusCode, float]:
    """Open a stream that never says Hello: how it ends, and after how long."""
    async with grpc.aio.insecure_channel(server.address) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        started = time.monotonic()
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await asyncio.wait_for(call.read(), HELLO_S + 5)
        return error.value.code(), time.monotonic() - started


def test_a_stream_that_never_says_hello_is_closed() -> None:
    async def scenario() -> tuple[grpc.StatusCode, float]:
        async with ArenaServer() as server:
            server.expect()
            return await _silent(server)

    code, seconds = asyncio.run(scenario())
    assert code is grpc.StatusCode.DEADLINE_EXCEEDED
    assert HELLO_S <= seconds < HELLO_S + 2


def test_once_every_token_is_used_a_new_stream_is_refused_at_once() -> None:
    async def scenario() -> tuple[grpc.StatusCode, float]:
        async with ArenaServer() as server:
            token, connected = server.expect()
            hello = pb.BotMessage(hello=pb.Hello(token=token, protocol_version=1))
            async with grpc.aio.insecure_channel(server.address) as channel:
                first = pb_grpc.BotArenaStub(channel).Play()
                await first.write(hello)
                session = await asyncio.wait_for(connected, 5)
                outcome = await _silent(server)
                session.close()
                first.cancel()
            return outcome

    code, seconds = asyncio.run(scenario())
    assert code is grpc.StatusCode.PERMISSION_DENIED
    assert seconds < HELLO_S / 2
