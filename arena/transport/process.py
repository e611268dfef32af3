"""A seat played by a bot process over gRPC: one process per seat for the whole match."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.bots import is_builtin
from arena.games.base import GameResult
from arena.runner.logs import CappedLog
from arena.runner.match import Agent, MatchSetup, Reply, Status
from arena.transport.server import ArenaServer, BotSession
from arena.wire.codec import GameCodec, ProtocolError, codec_for
from arena.wire.v1 import arena_pb2 as pb

_SOURCE_ROOT = str(Path(__file__).resolve().parents[2])


def bot_command(game: str, spec: str) -> list[str]:
    """The command that runs ``spec`` as a bot process: a built-in through ``python -m sdk``,
    a bot file as ``python FILE`` (the file calls ``sdk.run``)."""
    if is_builtin(spec):
        return [sys.executable, "-m", "sdk", spec, "--game", game]
    return [sys.executable, str(Path(spec).resolve())]


def bot_environment(address: str, token: str) -> dict[str, str]:
    """A bot's whole environment: nothing of the arena's own (no secrets) but what it needs."""
    return {
        "ARENA_ADDRESS": address,
        "ARENA_TOKEN": token,
        "PATH": os.defpath,
        "PYTHONPATH": _SOURCE_ROOT,
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "LANG": "C.UTF-8",
    }


class ProcessAgent(Agent):
    """Starts a bot process, waits for it to dial in, and talks to it over its stream."""

    def __init__(self, server: ArenaServer, command: Sequence[str], name: str) -> None:
        self.server = server
        self.command = list(command)
        self.name = name
        self.log = CappedLog()
        self.process: asyncio.subprocess.Process | None = None
        self.session: BotSession | None = None
        self.codec: GameCodec[Any, Any, Any] | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self.game_index = 0

    # -- lifecycle --

    async def start_match(self, setup: MatchSetup, agent_index: int) -> Reply:
        token, connected = self.server.expect()
        self.codec = codec_for(setup.game.name)
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
            env=bot_environment(self.server.address, token),
            start_new_session=True,
        )
        self._stderr_task = asyncio.create_task(self._drain_stderr())
        exited: asyncio.Future[Any] = asyncio.ensure_future(self.process.wait())
        done, _ = await asyncio.wait(
            {connected, exited}, timeout=setup.limits.startup_ms / 1000, return_when=asyncio.FIRST_COMPLETED
        )
        if connected not in done:
            exited.cancel()
            connected.cancel()
            if exited in done:
                return self._fault(
                    Status.CRASH, f"exited with code {self.process.returncode} before connecting", gone=True
                )
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
            seats=[pb.SeatInfo(seat=seat, name=name, team=seat) for seat, name in enumerate(setup.names)],
            limits=limits,
            games=setup.games,
            bot_seed=setup.bot_seeds[agent_index],
        )
        if not await self.session.send(pb.ArenaMessage(match_start=start)):
            return await self._lost()
        return Reply()

    async def _drain_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        while chunk := await self.process.stderr.read(65536):
            self.log.write(chunk.decode("utf-8", "replace"))

    def _fault(self, status: Status, detail: str, gone: bool = False) -> Reply:
        self.log.write(f"arena: {status}: {detail}\n")
        return Reply(status=status, detail=detail, gone=gone)

    async def _lost(self) -> Reply:
        """The stream ended: a crash, with the exit code if the process is gone."""
        assert self.process is not None
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), 1.0)
        code = self.process.returncode
        how = f"exited with code {code}" if code is not None else "closed its connection"
        if self.session is not None and self.session.read_error:
            return self._fault(Status.PROTOCOL_ERROR, self.session.read_error, gone=True)
        return self._fault(Status.CRASH, f"the bot process {how}", gone=True)

    async def start_game(self, game_index: int, seat: int) -> None:
        self.game_index = game_index
        if self.session is not None:
            await self.session.send(
                pb.ArenaMessage(game_start=pb.GameStart(game_index=game_index, seat=seat))
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
        try:
            answer = await self.session.ask(decision_id, message, (decision_ms + bank_ms) / 1000)
        except TimeoutError:
            return self._fault(Status.TIMEOUT, f"no answer within {decision_ms + bank_ms} ms")
        if answer is None:
            return await self._lost()
        kind = answer.WhichOneof("kind")
        if kind == "failure":
            self.log.write(answer.failure.detail)
            last = answer.failure.detail.strip().splitlines()[-1:] or ["(no detail)"]
            return Reply(status=Status.CRASH, detail=f"the bot raised: {last[0]}")
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
                pb.ArenaMessage(fault=pb.Fault(decision_id=decision_id, status=str(status), detail=detail))
            )

    async def end_game(
        self, game_index: int, result: GameResult, statuses: Sequence[str], reveal: Any
    ) -> None:
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
            reveal_json=json.dumps(reveal),
        )
        await self.session.send(pb.ArenaMessage(game_end=message))

    async def end_match(self, totals: Sequence[float], detail: str) -> None:
        if self.session is not None:
            await self.session.send(
                pb.ArenaMessage(match_end=pb.MatchEnd(total_scores=totals, detail=detail))
            )

    async def close(self) -> None:
        if self.session is not None:
            self.session.close()
        process = self.process
        if process is not None and process.returncode is None:
            try:
                await asyncio.wait_for(process.wait(), 2.0)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        if process is not None:
            # Whatever the bot left behind in its session dies with it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        if self._stderr_task is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stderr_task, 2.0)

    def log_text(self) -> str:
        return self.log.text()
