"""The bot side of the protocol: connect to the arena, answer decisions until the match ends."""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys
import traceback
from typing import Any

import arena.transport.grpc_io  # noqa: F401  (before grpc: how it moves bytes)

# isort: split
import grpc

from arena import loop
from arena.games.base import GameResult
from arena.wire.codec import GameCodec, IdentityMemo, ObservationReader, ProtocolError, codec_for
from arena.wire.v1 import arena_pb2 as pb
from arena.wire.v1 import arena_pb2_grpc as pb_grpc
from sdk.bot import Bot, MatchInfo

PROTOCOL_VERSION = 1
AGENT = "card-arena python sdk 0.1.0"
ANSWERS_KEPT = 4096
"""How many actions' answers a bot keeps (``_answers``)."""
FAILURE_CHARS = 8192
"""How much of a failure report (the end of a traceback) is sent: at most 4 bytes a character."""


def _match_info(start: pb.MatchStart, codec: GameCodec[Any, Any, Any]) -> MatchInfo:
    return MatchInfo(
        match_id=start.match_id,
        game=start.game,
        game_version=start.game_version,
        config=codec.decode_config(start.config),
        seat=start.seat,
        seat_names=tuple(info.name for info in start.seats),
        teams=tuple(info.team for info in start.seats),
        games=start.games,
        decision_ms=start.limits.decision_ms,
        bank_ms=start.limits.bank_ms,
        bot_seed=start.bot_seed,
    )


def _answers(codec: GameCodec[Any, Any, Any]) -> IdentityMemo[Any, pb.BotMessage]:
    """A bot's answers, one message kept per action object (its decision id set at each answer):
    an action a bot picks from its legal actions is the very object it picked before, as they are
    decoded through a memo, and encoding it again costs several times setting an id. Each answer
    is written before the next is made."""
    return IdentityMemo(lambda action: pb.BotMessage(action=codec.encode_action(action)), ANSWERS_KEPT)


def _result(message: pb.GameResult) -> GameResult:
    return GameResult(
        ranks=tuple(message.ranks),
        scores=tuple(message.scores),
        detail=json.loads(message.detail_json or "{}"),
    )


async def play(bot: Bot[Any, Any], address: str, token: str) -> None:
    """Play one match for ``bot`` against the arena at ``address``."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = pb_grpc.BotArenaStub(channel).Play()
        hello = pb.Hello(token=token, protocol_version=PROTOCOL_VERSION, agent=AGENT)
        await call.write(pb.BotMessage(hello=hello))
        codec: GameCodec[Any, Any, Any] | None = None
        observations: ObservationReader[Any] | None = None
        answers: IdentityMemo[Any, pb.BotMessage] | None = None
        while True:
            read = await call.read()
            if read is grpc.aio.EOF:
                break
            message: pb.ArenaMessage = read  # type: ignore[assignment]
            kind = message.WhichOneof("kind")
            if kind == "decision":
                if codec is None or observations is None or answers is None:
                    raise ProtocolError("a decision arrived before MatchStart")
                reply = _decide(bot, codec, observations, answers, message.decision)
                await call.write(reply)
            elif kind == "match_start":
                codec = codec_for(message.match_start.game)
                observations = codec.reader()
                answers = _answers(codec)
                bot.begin_match(_match_info(message.match_start, codec))
                # What is alive now (modules, grpc, the bot's own set-up) stays to the end: the
                # collector, run every few decisions, never scans it again.
                gc.freeze()
            elif kind == "game_start":
                if observations is not None:
                    observations.new_game()
                bot.begin_game(message.game_start.game_index, message.game_start.seat)
            elif kind == "game_end":
                bot.on_game_end(message.game_end.game_index, _result(message.game_end.result))
            elif kind == "fault":
                fault = message.fault
                print(f"arena: decision {fault.decision_id}: {fault.status}: {fault.detail}", file=sys.stderr)
            elif kind == "match_end":
                bot.on_match_end()
                break
        await call.done_writing()


def _decide(
    bot: Bot[Any, Any],
    codec: GameCodec[Any, Any, Any],
    observations: ObservationReader[Any],
    answers: IdentityMemo[Any, pb.BotMessage],
    request: pb.DecisionRequest,
) -> pb.BotMessage:
    observation = observations.decode(request.observation)
    legal = codec.decode_legal(request.legal_actions)
    try:
        action = bot.decide(observation, legal, request.decision_ms + request.bank_ms)
        answer = answers(action)
    except Exception:
        detail = traceback.format_exc()
        sys.stderr.write(detail)
        sys.stderr.flush()
        # The arena refuses messages over 64 KiB (a stream that sends one ends): the end of the
        # report, where the exception is, goes.
        report = pb.BotFailure(decision_id=request.decision_id, detail=detail[-FAILURE_CHARS:])
        return pb.BotMessage(failure=report)
    answer.action.decision_id = request.decision_id
    return answer


def run(bot: Bot[Any, Any], argv: list[str] | None = None) -> None:
    """Entry point of a bot file: ``if __name__ == "__main__": run(MyBot())``.

    The arena's address and this seat's token come from ``--address``/``--token`` or the
    ``ARENA_ADDRESS``/``ARENA_TOKEN`` environment variables.
    """
    import argparse

    parser = argparse.ArgumentParser(description=f"Run the bot {bot.display_name()} against an arena.")
    parser.add_argument("--address", default=os.environ.get("ARENA_ADDRESS"), help="arena address")
    parser.add_argument("--token", default=os.environ.get("ARENA_TOKEN", ""), help="this seat's token")
    args = parser.parse_args(argv)
    if not args.address:
        parser.error("no arena address: pass --address or set ARENA_ADDRESS")
    # On the way out, the interpreter's final garbage collections would walk every object of
    # grpc, protobuf and asyncio: some 20 ms of CPU per bot process, which the arena waits for at
    # the end of the match. Frozen at exit, they are skipped (atexit handlers and flushing still
    # run; finalizers of objects left in reference cycles, which Python never promises, may not).
    atexit.register(gc.freeze)
    loop.run(play(bot, args.address, args.token))
