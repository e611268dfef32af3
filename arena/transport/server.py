"""The arena's gRPC endpoint: bot processes dial in, and each stream is handed to its seat.

One ``ArenaServer`` serves one match from a private temporary folder. Each bot process gets a
door of its own: a gRPC server on a unix socket that only it is shown (a sandbox binds just
that socket into the bot's view) and a one-time token. Whatever a bot does to its door (hold
every connection it may, open streams without end), the other seats' doors stay free. A
stream whose Hello carries another token or another protocol version is refused.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import shutil
import tempfile
from pathlib import Path
from typing import Any

# grpc's C core logs what peers send (a GOAWAY's debug text, say) verbatim on stderr: a bot could
# write escape sequences or forged lines to the arena's terminal. Silenced before grpc loads; the
# arena reports every fault itself.
os.environ["GRPC_VERBOSITY"] = "NONE"

import arena.transport.grpc_io  # noqa: F401  (before grpc: how it moves bytes)

# isort: split
import grpc

from arena.runner.alarm import Alarm
from arena.wire.v1 import arena_pb2 as pb
from arena.wire.v1 import arena_pb2_grpc as pb_grpc

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 64 * 1024
"""The largest message a bot may send: its messages are tiny (an action, a Hello, a failure
report the SDK cuts to fit), and grpc buffers a message whole before the arena sees it."""
HELLO_S = 2.0
"""How long a new stream may take to say Hello: until then it holds memory and a handler."""
# What a bot may hold open at its door: each stream and connection costs the arena memory, and
# an honest bot uses one of each. Connections without a stream are closed after a short idle time.
MAX_STREAMS_PER_CONNECTION = 2
MAX_CONNECTIONS = 4
IDLE_CONNECTION_MS = 2000
HANDLERS_END_S = 1.0
"""How long a closed door waits for its streams' handlers to end (each has only to take its
cancellation)."""


class BotSession:
    """One bot's open stream.

    The stream's own handler reads every message as it arrives (``read_loop``) and hands the
    answer to the decision waiting for it, so a decision's deadline never cancels a read (which
    would end the stream), and stale answers to timed-out decisions are dropped. This costs one
    future per decision and no extra task.

    Every write is under a deadline too: a bot that stops reading (a receive window of 0) would
    otherwise hold a write, and its match, forever. One deadline per message covers both the write
    and the answer (all on the session's one ``Alarm``); if it passes while the write is still
    pending, the session is ``stalled``: cut off for good, its stream cancelled.
    """

    def __init__(self, context: grpc.aio.ServicerContext[Any, Any], agent: str) -> None:
        self.context = context
        self.agent = agent
        self.closed = False
        self.eof = False
        self.stalled = False
        self.read_error = ""
        self.stale = 0
        self._pending_id = 0
        self._pending: asyncio.Future[Any] | None = None
        self._writer: asyncio.Task[Any] | None = None
        self._handler = asyncio.current_task()
        self._alarm = Alarm(self._expire)
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        """Done once the bot's side of the stream has ended (closed, broken or unreadable)."""

    async def read_loop(self) -> None:
        try:
            while True:
                message = await self.context.read()
                if message is grpc.aio.EOF:
                    break
                self._deliver(message)
        except Exception as error:  # a malformed message ends the stream; report it
            self.read_error = f"unreadable message from the bot: {error!r}"
        finally:
            self.eof = True
            self.ended.set_result(None)
            if self._pending is not None and not self._pending.done():
                self._pending.set_result(None)

    def _deliver(self, message: pb.BotMessage) -> None:
        kind = message.WhichOneof("kind")
        if kind == "action":
            answered = message.action.decision_id
        elif kind == "failure":
            answered = message.failure.decision_id
        else:
            answered = self._pending_id  # anything else answers the open decision (as an error)
        pending = self._pending
        if pending is not None and answered == self._pending_id and not pending.done():
            pending.set_result(message)
        else:
            self.stale += 1

    async def send(self, message: pb.ArenaMessage, timeout_s: float) -> bool:
        """Write a message within ``timeout_s``; ``False`` if the stream is gone or stalled."""
        self._alarm.set(timeout_s)
        try:
            return await self._write(message)
        finally:
            self._alarm.clear()

    async def ask(self, decision_id: int, message: pb.ArenaMessage, timeout_s: float) -> Any:
        """Send a decision request and wait for its answer, both within ``timeout_s``: a
        ``BotMessage``, ``TimeoutError`` on the deadline, or ``None`` once the stream has ended
        or stalled."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending_id, self._pending = decision_id, future
        self._alarm.set(timeout_s)
        try:
            if not await self._write(message):
                return None
            return await future
        finally:
            self._alarm.clear()
            self._pending = None

    async def _write(self, message: pb.ArenaMessage) -> bool:
        if self.eof or self.closed:
            return False
        self._writer = task = asyncio.current_task()
        try:
            await self.context.write(message)
        except asyncio.CancelledError:
            if not self.stalled:
                raise
            assert task is not None
            task.uncancel()  # the cancellation was ours (``_expire``), not the caller's
            return False
        except Exception:
            self.eof = True
            return False
        finally:
            self._writer = None
        return True

    def _expire(self) -> None:
        future = self._pending
        if self._writer is not None:
            # The bot has not taken the message in time: it is cut off, and its stream with it.
            self.stalled = self.closed = True
            self._writer.cancel()
            if self._handler is not None:
                self._handler.cancel()
        elif future is not None and not future.done():
            future.set_exception(TimeoutError())

    def close(self) -> None:
        self.closed = True
        self._alarm.close()


class _Servicer(pb_grpc.BotArenaServicer):
    def __init__(self, door: Door) -> None:
        self.door = door

    async def Play(  # type: ignore[override]
        self, request_iterator: Any, context: grpc.aio.ServicerContext[Any, Any]
    ) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        self.door.handlers.add(handler)
        handler.add_done_callback(self.door.handlers.discard)
        session = self.door.session
        if session.done():
            # The seat has its stream (or gave up): nothing more to dial in for.
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "this seat's token is used")
        try:
            hello = await asyncio.wait_for(context.read(), HELLO_S)
        except TimeoutError:
            await context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, f"no Hello within {HELLO_S:.0f} s")
        if hello is grpc.aio.EOF or hello.WhichOneof("kind") != "hello":
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "the first message must be Hello")
        if hello.hello.protocol_version != PROTOCOL_VERSION:
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION,
                f"protocol version {hello.hello.protocol_version} is not supported; "
                f"this arena speaks {PROTOCOL_VERSION}",
            )
        if not secrets.compare_digest(hello.hello.token, self.door.token) or session.done():
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "unknown or already used token")
        opened = BotSession(context, hello.hello.agent)
        session.set_result(opened)
        await opened.read_loop()


class Door:
    """One bot process's way in: a gRPC server on a socket of its own, and the one token it takes.

    ``session`` receives the bot's stream once it has said Hello."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(mode=0o755)
        self.folder = folder
        self.socket = folder / "arena.sock"
        self.address = f"unix://{self.socket}"
        self.token = secrets.token_urlsafe(18)
        self.session: asyncio.Future[BotSession] = asyncio.get_running_loop().create_future()
        self.closed = False
        self.handlers: set[asyncio.Task[Any]] = set()
        """The running handlers of the door's streams."""
        self._server = grpc.aio.server(
            options=[
                ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
                ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
                ("grpc.max_allowed_incoming_connections", MAX_CONNECTIONS),
                ("grpc.max_connection_idle_ms", IDLE_CONNECTION_MS),
            ]
        )
        pb_grpc.add_BotArenaServicer_to_server(_Servicer(self), self._server)
        self._server.add_insecure_port(self.address)

    async def open(self) -> None:
        await self._server.start()
        # Sandboxed bots run under their own uids: the token says who may come in.
        os.chmod(self.socket, 0o666)

    async def close(self) -> None:
        """Shut the door: every connection to it ends, and its socket goes (safe to call twice)."""
        if self.closed:
            return
        self.closed = True
        if not self.session.done():
            self.session.cancel()
        await self._server.stop(grace=None)
        # The server's stop cancels its streams but leaves their handlers to end on their own: they
        # end here, each at its next step, while the server they call into still exists.
        if self.handlers:
            await asyncio.wait(set(self.handlers), timeout=HANDLERS_END_S)
        shutil.rmtree(self.folder, ignore_errors=True)


class ArenaServer:
    """The doors of one match's bot processes, in a private folder."""

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="arena-"))
        self._doors: list[Door] = []

    async def __aenter__(self) -> ArenaServer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(*(door.close() for door in self._doors))
        shutil.rmtree(self.folder, ignore_errors=True)

    async def open_door(self) -> Door:
        """A door for one bot process, open and waiting for its Hello."""
        door = Door(self.folder / f"door-{len(self._doors)}")
        self._doors.append(door)
        await door.open()
        return door
