"""A seat played by a bot process over gRPC: one process per seat for the whole match."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
from collections.abc import Callable, Sequence
from typing import Any

from arena.games.base import Game, GameConfig, GameResult
from arena.runner.logs import CappedLog
from arena.runner.match import MatchRunner, ProgressCallback
from arena.runner.records import MatchRecord
from arena.runner.terms import Agent, MatchSetup, Reply, Status
from arena.sandbox.base import BotProcess, BotProgram, Sandbox, SandboxError
from arena.transport.server import ArenaServer, BotSession, Door
from arena.wire.codec import GameCodec, ProtocolError, codec_for
from arena.wire.v1 import arena_pb2 as pb

_SLOTS = itertools.count()
MESSAGE_S = 1.0
"""How long a message other than a decision request (which is under the decision's clock) may
take to reach a bot: a bot that does not take it in by then has stopped reading and is cut off."""
PIPE_CHUNK = 65536
"""The most of a bot's stderr read at once."""


class Running:
    """A started bot process watched from the event loop: its exit (through a pidfd, whichever
    thread started it) and its stderr."""

    def __init__(self, process: BotProcess) -> None:
        loop = asyncio.get_running_loop()
        self.process = process
        self.pid = process.pid
        self._exited: asyncio.Future[int] = loop.create_future()
        self._pidfd = os.pidfd_open(process.pid)
        loop.add_reader(self._pidfd, self._check)
        self._check()

    def _check(self) -> None:
        code = self.process.poll()
        if code is not None and not self._exited.done():
            asyncio.get_running_loop().remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._exited.set_result(code)

    @property
    def returncode(self) -> int | None:
        return self.process.returncode

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    async def drain_stderr(self, write: Callable[[bytes], None]) -> None:
        """Hand everything the process writes to its stderr to ``write`` until the pipe's end, then
        close the pipe. Read here, not through a transport: uvloop closes a pipe's descriptor, then
        the pipe's file object closes it again, at the loop's end if not before, when another
        thread (the warm pool's, grpc's) may have been given that descriptor's number meanwhile."""
        stderr = self.process.stderr
        assert stderr is not None
        descriptor = stderr.fileno()
        os.set_blocking(descriptor, False)
        loop = asyncio.get_running_loop()
        ended = loop.create_future()

        def readable() -> None:
            try:
                chunk = os.read(descriptor, PIPE_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if chunk:
                write(chunk)
            elif not ended.done():
                ended.set_result(None)

        loop.add_reader(descriptor, readable)
        try:
            await ended
        finally:
            loop.remove_reader(descriptor)
            stderr.close()


class ProcessAgent(Agent):
    """Starts a bot process, waits for it to dial in, and talks to it over its stream."""

    def __init__(self, server: ArenaServer, sandbox: Sandbox, program: BotProgram, name: str) -> None:
        self.server = server
        self.sandbox = sandbox
        self.program = program
        self.slot = next(_SLOTS)
        self.name = name
        self.log = CappedLog()
        self.process: Running | None = None
        self.door: Door | None = None
        self.session: BotSession | None = None
        self.codec: GameCodec[Any, Any, Any] | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self.game_index = 0

    # -- lifecycle --

    async def start_match(self, setup: MatchSetup, agent_index: int) -> Reply:
        self.session = None
        self.door = door = await self.server.open_door()
        connected = door.session
        self.codec = codec_for(setup.game.name)
        started = self.sandbox.start(self.program, door.socket, door.token, self.slot)
        self.process = Running(started.process)
        self._stderr_task = asyncio.create_task(self.process.drain_stderr(self.log.write))
        exited: asyncio.Future[Any] = asyncio.ensure_future(self.process.wait())
        done, _ = await asyncio.wait(
            {connected, exited}, timeout=setup.limits.startup_ms / 1000, return_when=asyncio.FIRST_COMPLETED
        )
        # The launcher's record, never anything the bot can print, tells whether the sandbox
        # got as far as the bot's code: without it, the failure is the infrastructure's.
        launched = started.started()
        if connected not in done:
            exited.cancel()
            connected.cancel()
            if exited in done:
                await self._stderr_done()
            if not launched:
                log = self.log.text()
                raise SandboxError(f"the {self.sandbox.name} sandbox failed to start {self.name}: {log}")
            if exited in done:
                return self._exit_fault(before_connecting=True)
            return self._fault(
                Status.TIMEOUT, f"did not connect within {setup.limits.startup_ms} ms", gone=True
            )
        exited.cancel()
        self.session = connected.result()
        limits = pb.TimeLimits(decision_ms=setup.limits.decision_ms, bank_ms=setup.limits.bank_ms)
        start = pb.MatchStart(
            match_id=setup.match_id,
            game=setup.game.name,
            game_version=setup.game.version,
            config=self.codec.encode_config(setup.config),
            seat=agent_index,
            seats=[
                pb.SeatInfo(seat=seat, name=name, team=setup.game.team_of(seat))
                for seat, name in enumerate(setup.names)
            ],
            limits=limits,
            games=setup.games,
            bot_seed=setup.bot_seeds[agent_index],
        )
        if not await self.session.send(pb.ArenaMessage(match_start=start), MESSAGE_S):
            return await self._lost()
        return Reply()

    def _fault(self, status: Status, detail: str, gone: bool = False) -> Reply:
        self.log.write(f"arena: {status}: {detail}\n")
        return Reply(status=status, detail=detail, gone=gone)

    async def _lost(self) -> Reply:
        """The stream ended: why, from the process's end and the sandbox's accounts."""
        assert self.process is not None
        if self.session is not None and self.session.stalled:
            return self._fault(Status.TIMEOUT, "stopped reading the arena's messages: cut off", gone=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), 1.0)
        if self.session is not None and self.session.read_error:
            return self._fault(Status.PROTOCOL_ERROR, self.session.read_error, gone=True)
        await self._stderr_done()
        return self._exit_fault(before_connecting=False)

    def _exit_fault(self, before_connecting: bool) -> Reply:
        assert self.process is not None
        code = self.process.returncode
        when = " before connecting" if before_connecting else ""
        # A process killed by a signal shows -N; under bubblewrap, which relays it, 128 + N.
        signal_number = -code if code is not None and code < 0 else code - 128 if code and code > 128 else 0
        if signal_number == signal.SIGXCPU:
            return self._fault(Status.CPU, f"killed on its CPU time limit{when}", gone=True)
        if self.sandbox.memory_exceeded(self.slot) or "MemoryError" in self.log.last_traceback:
            detail = f"went over its memory limit{when} (exit code {code})"
            return self._fault(Status.MEMORY, detail, gone=True)
        if signal_number == signal.SIGKILL and self.sandbox.cpu_exceeded(self.slot):
            return self._fault(
                Status.CPU, f"killed on its CPU time limit{when} (it ignored SIGXCPU)", gone=True
            )
        how = f"exited with code {code}" if code is not None else "closed its connection"
        python = self.program.entry.endswith(".py")
        hint = (
            " (does the bot file end with `run(MyBot())`?)"
            if before_connecting and code == 0 and python
            else ""
        )
        return self._fault(Status.CRASH, f"the bot process {how}{when}{hint}", gone=True)

    async def _stderr_done(self) -> None:
        if self._stderr_task is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._stderr_task), 2.0)

    async def start_game(self, game_index: int, seat: int) -> None:
        self.game_index = game_index
        if self.session is not None:
            await self.session.send(
                pb.ArenaMessage(game_start=pb.GameStart(game_index=game_index, seat=seat)), MESSAGE_S
            )

    # -- decisions --

    async def decide(
        self, decision_id: int, observation: Any, legal: Sequence[Any], decision_ms: int, bank_ms: int
    ) -> Reply:
        assert self.codec is not None
        if self.session is None:
            return await self._lost()
        message = pb.ArenaMessage()
        request = message.decision
        request.decision_id = decision_id
        request.game_index = self.game_index
        request.decision_ms = decision_ms
        request.bank_ms = bank_ms
        self.codec.fill_request(request, observation, legal)
        self.sandbox.turn(self.slot, True)
        try:
            answer = await self.session.ask(decision_id, message, (decision_ms + bank_ms) / 1000)
        except TimeoutError:
            return self._fault(Status.TIMEOUT, f"no answer within {decision_ms + bank_ms} ms")
        finally:
            self.sandbox.turn(self.slot, False)
        if answer is None:
            return await self._lost()
        kind = answer.WhichOneof("kind")
        if kind == "failure":
            last = (answer.failure.detail.strip().splitlines()[-1:] or ["(no detail)"])[0]
            status = Status.MEMORY if last.startswith("MemoryError") else Status.CRASH
            return Reply(status=status, detail=f"the bot raised: {last}")
        if kind != "action":
            return self._fault(Status.PROTOCOL_ERROR, f"expected an Action, got {kind or 'an empty message'}")
        try:
            action = self.codec.decode_action(answer.action)
        except ProtocolError as error:
            return self._fault(Status.PROTOCOL_ERROR, str(error))
        return Reply(action=action)

    async def fault(self, decision_id: int, status: Status, detail: str) -> None:
        if self.session is not None:
            await self.session.send(
                pb.ArenaMessage(fault=pb.Fault(decision_id=decision_id, status=str(status), detail=detail)),
                MESSAGE_S,
            )

    async def end_game(self, game_index: int, result: GameResult, statuses: Sequence[str]) -> None:
        self.sandbox.turn(self.slot, True)  # the least weight is for the game's other turns only
        if self.session is None:
            return
        message = pb.GameEnd(
            game_index=game_index,
            result=pb.GameResult(
                ranks=result.ranks,
                scores=result.scores,
                detail_json=json.dumps(dict(result.detail)),
                statuses=statuses,
            ),
            reveal_json="null",  # hidden cards are never shown to a bot
        )
        await self.session.send(pb.ArenaMessage(game_end=message), MESSAGE_S)

    async def end_match(self, totals: Sequence[float], detail: str) -> None:
        if self.session is not None:
            await self.session.send(
                pb.ArenaMessage(match_end=pb.MatchEnd(total_scores=totals, detail=detail)), MESSAGE_S
            )

    async def close(self) -> None:
        process, session = self.process, self.session
        if process is not None and process.returncode is None:
            # The bot is done with the match once it has ended its stream: its process's own
            # teardown after that (a channel's and an interpreter's shutdown, tens of ms) is not
            # waited for, the sandbox's release below ends it.
            exited: asyncio.Future[Any] = asyncio.ensure_future(process.wait())
            over = {exited} if session is None else {exited, session.ended}
            await asyncio.wait(over, timeout=2.0, return_when=asyncio.FIRST_COMPLETED)
            exited.cancel()
        if session is not None:
            session.close()
        if process is not None:
            # Whatever the bot left behind in its session dies with it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        # The sandbox kills what is left of the bot, even outside its session; off the event
        # loop, as that may take a moment.
        await asyncio.to_thread(self.sandbox.release, self.slot)
        if process is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 2.0)
        if self.door is not None:
            await self.door.close()
        await self._stderr_done()

    def log_text(self) -> str:
        return self.log.text()


async def play_match(
    game: Game[Any, Any, Any],
    config: GameConfig,
    specs: Sequence[str | BotProgram | Agent],
    sandbox: Sandbox,
    names: Sequence[str] | None = None,
    on_game: ProgressCallback | None = None,
    runner: Callable[..., MatchRunner] = MatchRunner,
    **runner_options: Any,
) -> MatchRecord:
    """Play a match in ``sandbox``, one bot process per spec: ``builtin:NAME``, a bot file or a program;
    an ``Agent`` among the specs (a trusted bot in this process) plays its seat as it is. ``runner``
    makes the match runner (a ``MatchRunner`` subclass, say) from the agents and ``runner_options``."""
    programs = [
        spec if isinstance(spec, BotProgram | Agent) else BotProgram.from_spec(game.name, spec)
        for spec in specs
    ]
    described = [program.name if isinstance(program, Agent) else program.describe() for program in programs]
    async with ArenaServer() as server:
        agents = [
            program if isinstance(program, Agent) else ProcessAgent(server, sandbox, program, name)
            for program, name in zip(programs, names or described, strict=True)
        ]
        return await runner(game, config, agents, specs=described, **runner_options).run(on_game)
