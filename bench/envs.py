"""Training environments' speed: ``python bench/envs.py`` (``--quick`` for a short run, ``--game``).

Per game, on one CPU, in alternating rounds: the in-process match runner with random built-in bots,
the PettingZoo environment (``sdk.envs.aec.ArenaEnv``) over the same match, and the vectorised
self-play loop (``sdk.envs.vector.SelfPlay``), in this process's CPU time. The goal figure is the
environment's time per decision over the runner's (the median of the rounds' ratios): at most 2x.

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena import loop  # noqa: E402
from arena.bots import load_bot  # noqa: E402
from arena.games.believe import random_legal_action  # noqa: E402
from arena.games.registry import get_game  # noqa: E402
from arena.runner.deals import derive_seed  # noqa: E402
from arena.runner.inprocess import InProcessAgent  # noqa: E402
from arena.runner.match import MatchRunner  # noqa: E402
from arena.sandbox import cpus  # noqa: E402
from sdk.envs.aec import ArenaEnv  # noqa: E402
from sdk.envs.vector import SelfPlay  # noqa: E402

GAMES = (("edible", 3), ("believe", 3), ("kozel", 4))
clock = time.process_time
"""This process's CPU time: what a loaded machine's other work takes leaves it be."""
SEED = 2026
TABLES = 64


def runner(game: str, seats: int, games: int) -> float:
    """Seconds per decision of the in-process runner, random bots."""
    agents = [InProcessAgent(load_bot(game, "builtin:random")) for _ in range(seats)]
    engine = get_game(game)
    started = clock()
    record = loop.run(MatchRunner(engine, engine.config_type(), agents, games=games, seed=SEED).run())
    return (clock() - started) / record.decisions()


def engine_only(game: str, seats: int, games: int) -> float:
    """Seconds per decision of the engine's own part of one: the seat's observation, the legal
    actions, a random action applied (what the runner asks of the engine, with no bots or clocks)."""
    engine = get_game(game)
    decisions = 0
    started = clock()
    for number in range(games):
        rng = random.Random(derive_seed(SEED, number))
        state = engine.new_state(engine.config_type(), seats, rng)
        while (seat := state.to_act()) is not None:
            state.observation(seat)
            state.legal_actions()
            state.apply(state.random_action(rng), rng)
            decisions += 1
    return (clock() - started) / decisions


def environment(game: str, seats: int, games: int) -> tuple[float, float]:
    """Seconds per step and per decision of the AEC environment, every agent playing as the
    runner's random bots do: uniformly among the legal actions (believe: a uniform choice among
    the calls and placing, then a uniform count of random cards), as indices."""
    env = ArenaEnv(game, seats)
    rng = random.Random(1)
    queued: list[int] = []
    steps = 0
    started = clock()
    env.reset(seed=SEED)
    for number in range(games):
        if number:
            env.reset()
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            if not queued:
                if game == "believe":
                    typed = env.typed_observation(agent)
                    queued = env.table.encoding.indices(random_legal_action(typed, rng), typed)
                else:
                    queued = [rng.choice(np.flatnonzero(observation["action_mask"]))]
            env.step(queued.pop(0))
            steps += 1
    elapsed = clock() - started
    return elapsed / steps, elapsed / env.table.decisions


def self_play(game: str, seats: int, games: int) -> tuple[float, float]:
    """Seconds per step and per decision of ``SelfPlay``, a uniformly random legal index per
    table (believe: placements of more cards than the bots' on average), until ``games`` end."""
    play = SelfPlay(game, TABLES, seats, seed=SEED)
    rng = np.random.default_rng(1)
    ended = steps = 0
    started = clock()
    while ended < games:
        _, masks, _ = play.observe()
        indices = np.argmax(rng.random(masks.shape) * masks, axis=1)
        _, done = play.step(indices)
        ended += int(done.sum())
        steps += TABLES
    elapsed = clock() - started
    return elapsed / steps, elapsed / sum(table.decisions for table in play.tables)


def line(label: str, seconds: float, runner_seconds: float, note: str = "") -> None:
    rate, ratio = 1 / seconds, seconds / runner_seconds
    print(f"{label:<34} {rate:>10,.0f} /s {seconds * 1e6:>8.1f} us {ratio:6.2f}x the runner{note}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games and rounds")
    parser.add_argument("--game", choices=[game for game, _ in GAMES], help="this game only")
    args = parser.parse_args()
    rounds = 3 if args.quick else 5
    cpu = cpus.claim()
    where = "on every CPU (ARENA_PIN_CPU=0 or none free)" if cpu is None else f"kept to CPU {cpu}"
    print(f"Training environments' speed, {os.cpu_count()} cores, {where}, Python {sys.version.split()[0]}")
    print("goal: the environment's time per decision at most 2x the in-process runner's, same games")
    for game, seats in GAMES:
        if args.game not in (None, game):
            continue
        games = (4 if args.quick else 10) if game == "kozel" else (60 if args.quick else 200)
        print(f"\n== {game}, {seats} seats, {games} games a round, {rounds} rounds, random legal actions")
        timings: dict[str, list[float]] = {
            name: [] for name in ("runner", "step", "env", "tables", "vector", "engine")
        }
        for _ in range(rounds):
            timings["runner"].append(runner(game, seats, games))
            step, decision = environment(game, seats, games)
            timings["step"].append(step)
            timings["env"].append(decision)
            step, decision = self_play(game, seats, games)
            timings["tables"].append(step)
            timings["vector"].append(decision)
            timings["engine"].append(engine_only(game, seats, games))
        median = {name: statistics.median(values) for name, values in timings.items()}
        base = median["runner"]

        line("runner, in-process (decisions)", base, base)
        line("environment, AEC (steps)", median["step"], base)
        line("environment, AEC (decisions)", median["env"], base, "  <- goal <= 2x")
        line(f"self-play, {TABLES} tables (steps)", median["tables"], base)
        line(f"self-play, {TABLES} tables (decisions)", median["vector"], base)
        line("engine's own part (decisions)", median["engine"], base)
        # Each round's environment over the same round's runner: a load that drifts between
        # rounds moves both alike, so the median of these ratios is the steadier goal figure.
        rounds_ratios = zip(timings["env"], timings["runner"], strict=True)
        ratio = statistics.median(env / run for env, run in rounds_ratios)
        verdict = "meets" if ratio <= 2 else "MISSES"
        print(f"{game}: the environment {verdict} the goal ({ratio:.2f}x the runner per decision, by round)")


if __name__ == "__main__":
    main()
