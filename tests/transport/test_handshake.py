"""The arena refuses streams that do not open with a valid Hello."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import grpc
import pytest

from arena.transport.server import HELLO_S, ArenaServer, Door, _Servicer
from arena.wire.v1 import arena_pb2 as pb
from arena.wire.v1 import arena_pb2_grpc as pb_grpc


async def _dial(door: Door, first: pb.BotMessage) -> grpc.StatusCode:
    async with grpc.aio.insecure_channel(door.address) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        with pytest.raises(grpc.aio.AioRpcError) as error:
            # A door may refuse the stream before the write is done with: then the write raises.
            await call.write(first)
            await call.read()
        return error.value.code()


def test_bad_tokens_versions_and_openings_are_refused() -> None:
    async def scenario() -> list[grpc.StatusCode]:
        async with ArenaServer() as server:
            door, other = await server.open_door(), await server.open_door()
            codes = [
                await _dial(door, pb.BotMessage(hello=pb.Hello(token="forged", protocol_version=1))),
                await _dial(door, pb.BotMessage(hello=pb.Hello(token=other.token, protocol_version=1))),
                await _dial(door, pb.BotMessage(hello=pb.Hello(token=door.token, protocol_version=2))),
                await _dial(door, pb.BotMessage(action=pb.Action(decision_id=1))),
            ]
            assert not door.session.done()
            assert not other.session.done()
            return codes

    # Another seat's token opens only that seat's door.
    assert asyncio.run(scenario()) == [
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.INVALID_ARGUMENT,
    ]


def _hello(door: Door) -> pb.BotMessage:
    return pb.BotMessage(hello=pb.Hello(token=door.token, protocol_version=1))


@asynccontextmanager
async def _seated(door: Door) -> AsyncIterator[None]:
    """The door's own bot dialled in and said Hello: its seat is taken while the block runs."""
    async with grpc.aio.insecure_channel(door.address) as channel:
        first = pb_grpc.BotArenaStub(channel).Play()
        await first.write(_hello(door))
        session = await asyncio.wait_for(door.session, 5)
        try:
            yield
        finally:
            session.close()
            first.cancel()


def test_a_token_works_once() -> None:
    async def scenario() -> grpc.StatusCode:
        async with ArenaServer() as server:
            door = await server.open_door()
            async with _seated(door):
                return await _dial(door, _hello(door))

    assert asyncio.run(scenario()) is grpc.StatusCode.PERMISSION_DENIED


async def _silent(door: Door) -> tuple[grpc.StatusCode, float]:
    """Open a stream that never says Hello: how it ends, and after how long."""
    async with grpc.aio.insecure_channel(door.address) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        started = time.monotonic()
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await asyncio.wait_for(call.read(), HELLO_S + 5)
        return error.value.code(), time.monotonic() - started


def test_a_stream_that_never_says_hello_is_closed() -> None:
    async def scenario() -> tuple[grpc.StatusCode, float]:
        async with ArenaServer() as server:
            return await _silent(await server.open_door())

    code, seconds = asyncio.run(scenario())
    assert code is grpc.StatusCode.DEADLINE_EXCEEDED
    assert HELLO_S <= seconds < HELLO_S + 2


def test_once_its_token_is_used_a_door_refuses_new_streams_at_once() -> None:
    async def scenario() -> tuple[grpc.StatusCode, float]:
        async with ArenaServer() as server:
            door = await server.open_door()
            async with _seated(door):
                return await _silent(door)

    code, seconds = asyncio.run(scenario())
    assert code is grpc.StatusCode.PERMISSION_DENIED
    assert seconds < HELLO_S / 2


def test_a_closed_door_leaves_none_of_its_streams_handlers_running(monkeypatch: pytest.MonkeyPatch) -> None:
    # The server's stop cancels its streams but does not wait for their handlers: they went on
    # after the door was closed, to run into a server being torn down.
    running: set[int] = set()
    play = _Servicer.Play

    async def watched(self: _Servicer, request_iterator: Any, context: Any) -> None:
        running.add(id(context))
        try:
            await play(self, request_iterator, context)
        finally:
            running.discard(id(context))

    monkeypatch.setattr(_Servicer, "Play", watched)

    async def scenario() -> set[int]:
        async with ArenaServer() as server:
            seated, waiting = await server.open_door(), await server.open_door()
            async with (
                grpc.aio.insecure_channel(seated.address) as one,
                grpc.aio.insecure_channel(waiting.address) as other,
            ):
                await pb_grpc.BotArenaStub(one).Play().write(_hello(seated))
                await asyncio.wait_for(seated.session, 5)
                await pb_grpc.BotArenaStub(other).Play().wait_for_connection()  # never says Hello
                while len(running) < 2:
                    await asyncio.sleep(0.01)
                await asyncio.gather(seated.close(), waiting.close())
                return set(running)

    assert asyncio.run(scenario()) == set()
