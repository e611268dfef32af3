"""Card Arena benchmark: ``python bench/run.py`` (``--quick`` for a short run).

Prints, per registered game, the engine's random playouts, the in-process match runner's decisions/s
and a match over gRPC in microseconds per decision, next to the transport floor measured in the same
run (a bare gRPC round trip answering a pre-encoded message); the ratio of the two is the goal figure
(at most 1.3x). A match of bots that decode nothing (``raw_bot.py``) parts the arena's side from the
SDK's. Every figure is a median of several rounds, on one CPU (``ARENA_PIN_CPU=0`` runs it anywhere).

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# As the arena does (arena.transport.server), before grpc loads: its C core's info lines (a fork
# while its threads run, at every floor client started) would bury the figures.
os.environ["GRPC_VERBOSITY"] = "NONE"

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import arena.transport.grpc_io  # noqa: E402, F401, I001  (before grpc: the floor's grpc is the arena's)
import grpc  # noqa: E402

from arena import loop  # noqa: E402
from arena.bots import load_bot  # noqa: E402
from arena.games.base import Game  # noqa: E402
from arena.games.registry import all_games, get_game  # noqa: E402
from arena.runner.inprocess import InProcessAgent  # noqa: E402
from arena.runner.match import MatchRunner  # noqa: E402
from arena.runner.terms import Limits, MatchSetup, Status  # noqa: E402
from arena.sandbox import BotProgram, NoSandbox, Sandbox, SandboxError, cpus  # noqa: E402
from arena.sandbox.base import bot_environment  # noqa: E402
from arena.sandbox.bubblewrap import BubblewrapSandbox  # noqa: E402
from arena.transport.process import ProcessAgent, play_match  # noqa: E402
from arena.transport.server import ArenaServer  # noqa: E402
from arena.wire.codec import codec_for  # noqa: E402
from arena.wire.v1 import arena_pb2 as pb  # noqa: E402
from arena.wire.v1 import arena_pb2_grpc as pb_grpc  # noqa: E402


def typical_seats(game: Game[Any, Any, Any]) -> int:
    return min(max(3, game.min_seats), game.max_seats)


def engine_only(game: Game[Any, Any, Any], seats: int, games: int) -> tuple[float, float]:
    decisions = 0
    started = time.perf_counter()
    for seed in range(games):
        rng = random.Random(seed)
        state = game.new_state(game.config_type(), seats, rng)
        while not state.is_terminal():
            state.apply(state.random_action(rng), rng)
            decisions += 1
    elapsed = time.perf_counter() - started
    return games / elapsed, decisions / elapsed


def runner_in_process(game: Game[Any, Any, Any], seats: int, games: int) -> float:
    agents = [InProcessAgent(load_bot(game.name, "builtin:random")) for _ in range(seats)]
    record = loop.run(MatchRunner(game, game.config_type(), agents, games=games, seed=1).run())
    return record.decisions() / record.play_s


RAW_BOT = str(ROOT / "bench" / "raw_bot.py")


async def grpc_match(
    game: Game[Any, Any, Any], seats: int, games: int, sandbox: Sandbox, bot: str = "builtin:random"
) -> float:
    """Microseconds per decision of a match played by bot processes (start-up excluded)."""
    specs = [bot] * seats
    record = await play_match(game, game.config_type(), specs, sandbox, games=games, seed=1)
    return record.play_s / record.decisions() * 1e6


def sample_request(game: Game[Any, Any, Any], seats: int) -> pb.ArenaMessage:
    """A real mid-game decision request, so the floor moves messages of the match's size."""
    rng = random.Random(3)
    state = game.new_state(game.config_type(), seats, rng)
    for _ in range(6):
        state.apply(state.random_action(rng), rng)
    seat = state.to_act()
    assert seat is not None
    message = pb.ArenaMessage()
    message.decision.decision_id = 1
    codec_for(game.name).fill_request(message.decision, state.observation(seat), state.legal_actions())
    return message


class _FloorServicer(pb_grpc.BotArenaServicer):
    """Writes the message and reads the answer, in turn over its clients' streams."""

    def __init__(self, message: pb.ArenaMessage, round_trips: int, clients: int) -> None:
        self.message, self.round_trips, self.clients = message, round_trips, clients
        self.streams: list[Any] = []
        self.finished = asyncio.Event()
        self.per_trip_us = 0.0

    async def Play(self, request_iterator: Any, context: Any) -> None:  # type: ignore[override]
        await context.read()
        self.streams.append(context)
        if len(self.streams) == self.clients:
            await self._measure()
        await self.finished.wait()

    async def _measure(self) -> None:
        streams = self.streams
        started = time.perf_counter()
        for trip in range(self.round_trips):
            stream = streams[trip % len(streams)]
            await stream.write(self.message)
            await stream.read()
        self.per_trip_us = (time.perf_counter() - started) / self.round_trips * 1e6
        for stream in streams:
            await stream.write(pb.ArenaMessage(match_end=pb.MatchEnd()))
        self.finished.set()


async def bare_round_trip(message: pb.ArenaMessage, round_trips: int, clients: int = 1) -> float:
    """The transport floor: microseconds per round trip, taking ``clients`` client processes in turn."""
    folder = tempfile.mkdtemp(prefix="arena-floor-")
    address = f"unix://{folder}/floor.sock"
    server = grpc.aio.server()
    servicer = _FloorServicer(message, round_trips, clients)
    pb_grpc.add_BotArenaServicer_to_server(servicer, server)
    server.add_insecure_port(address)
    await server.start()
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            str(ROOT / "bench" / "echo_bot.py"),
            env={**bot_environment(), "ARENA_ADDRESS": address, "ARENA_TOKEN": "floor"},
        )
        for _ in range(clients)
    ]
    for process in processes:
        await process.wait()
    await server.stop(None)
    os.rmdir(folder)
    return servicer.per_trip_us


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games and rounds")
    args = parser.parse_args()
    rounds = 3 if args.quick else 5
    engine_games, runner_games, grpc_games = (300, 200, 20) if args.quick else (2000, 1000, 60)
    cpu = cpus.claim()
    where = "on every CPU (ARENA_PIN_CPU=0 or none free)" if cpu is None else f"kept to CPU {cpu}"
    print(
        f"Card Arena benchmark, {os.cpu_count()} cores, {where} as a match is, "
        f"Python {sys.version.split()[0]}, grpc {grpc.__version__}"
    )
    for game in all_games():
        seats = typical_seats(game)
        print(f"\n== {game.game_id}, {seats} seats, random bots")
        engine = [engine_only(game, seats, engine_games) for _ in range(rounds)]
        games_per_s = statistics.median(result[0] for result in engine)
        decisions_per_s = statistics.median(result[1] for result in engine)
        print(f"engine only:            {games_per_s:>10,.0f} games/s {decisions_per_s:>12,.0f} decisions/s")
        runner = statistics.median(runner_in_process(game, seats, runner_games) for _ in range(rounds))
        print(f"runner, in-process:     {runner:>33,.0f} decisions/s ({1e6 / runner:.1f} us/decision)")
        message = sample_request(game, seats)
        trips = 2000 if args.quick else 4000
        floors: list[float] = []
        seat_floors: list[float] = []
        matches: list[float] = []
        raw: list[float] = []
        for _ in range(rounds):
            floors.append(loop.run(bare_round_trip(message, trips)))
            matches.append(loop.run(grpc_match(game, seats, grpc_games, NoSandbox())))
            if game.lists_all_actions:
                raw.append(loop.run(grpc_match(game, seats, grpc_games, NoSandbox(), RAW_BOT)))
            seat_floors.append(loop.run(bare_round_trip(message, trips, clients=seats)))
        floor, seat_floor = statistics.median(floors), statistics.median(seat_floors)
        over_grpc = statistics.median(matches)
        print(
            f"bare gRPC round trip:   {floor:>10.0f} us   "
            f"(one client, {message.ByteSize()} B request) {_rounds(floors)}"
        )
        print(
            f"  same, {seats} clients in turn: {seat_floor:>6.0f} us   "
            f"(the match's shape) {_rounds(seat_floors)}"
        )
        print(f"match over gRPC:        {over_grpc:>10.0f} us per decision {_rounds(matches)}")
        print(f"ratio to the floor:     {over_grpc / floor:>10.2f}x   (goal: at most 1.3x)")
        print(f"ratio to the {seats}-client floor: {over_grpc / seat_floor:>4.2f}x")
        if raw:
            arena_side = statistics.median(raw)
            print(
                f"  bots decoding nothing: {arena_side:>6.0f} us per decision, "
                f"{arena_side / seat_floor:.2f}x the {seats}-client floor (the arena's side) {_rounds(raw)}"
            )
        else:
            print("  bots decoding nothing: not measured (not every legal action is listed)")
    sandbox_section(get_game("edible"), rounds, grpc_games)


async def start_up_ms(game: Game[Any, Any, Any], sandbox: Sandbox) -> float:
    """Milliseconds from spawning a built-in bot process until it has dialled in and said Hello."""
    async with ArenaServer() as server:
        agent = ProcessAgent(server, sandbox, BotProgram(game=game.name, builtin="random"), "random")
        setup = MatchSetup(
            match_id="bench",
            game=game,
            config=game.config_type(),
            names=("random",),
            games=1,
            limits=Limits(),
            bot_seeds=(0,),
        )
        started = time.perf_counter()
        reply = await agent.start_match(setup, 0)
        elapsed = (time.perf_counter() - started) * 1000
        await agent.close()
    assert reply.status is Status.OK, reply.detail
    return elapsed


def sandbox_section(game: Game[Any, Any, Any], rounds: int, grpc_games: int) -> None:
    print(f"\n== sandbox (bubblewrap) overhead, {game.game_id}")
    try:
        sandbox = BubblewrapSandbox()
    except SandboxError as error:
        print(f"bubblewrap unavailable here: {error}")
        return
    plain_start: list[float] = []
    boxed_start: list[float] = []
    for _ in range(rounds * 2):
        plain_start.append(loop.run(start_up_ms(game, NoSandbox())))
        boxed_start.append(loop.run(start_up_ms(game, sandbox)))
    plain, boxed = statistics.median(plain_start), statistics.median(boxed_start)
    # The backends start a Python bot differently: a plain process is a new interpreter that imports
    # the SDK; bubblewrap forks one that imported it ahead (the zygote) into a prepared sandbox.
    print(f"bot start-up, plain process: {plain:>7.1f} ms, a new interpreter {_rounds(plain_start)}")
    print(
        f"bot start-up, bubblewrap:    {boxed:>7.1f} ms, forked from the SDK's imports "
        f"(goal: at most 20 ms) {_rounds(boxed_start)}"
    )
    seats = typical_seats(game)
    plain_decisions: list[float] = []
    boxed_decisions: list[float] = []
    for _ in range(rounds):
        plain_decisions.append(loop.run(grpc_match(game, seats, grpc_games, NoSandbox())))
        boxed_decisions.append(loop.run(grpc_match(game, seats, grpc_games, sandbox)))
    plain, boxed = statistics.median(plain_decisions), statistics.median(boxed_decisions)
    print(f"per decision, plain process: {plain:>7.0f} us {_rounds(plain_decisions)}")
    print(f"per decision, bubblewrap:    {boxed:>7.0f} us {_rounds(boxed_decisions)}")
    print(f"ratio:                       {boxed / plain:>7.2f}x (goal: unchanged, 1.0x)")


def _rounds(values: list[float]) -> str:
    return "[rounds: " + ", ".join(f"{value:.0f}" for value in values) + "]"


if __name__ == "__main__":
    main()
