"""The tournament the throughput benchmarks play: a round robin of a game's quick built-in bots.

It is played two ways: on the local process pool with the bots in the bubblewrap sandbox, as
production plays it (``play_local``), and the very same matches on the in-process runner with the
trusted in-process agents, no bot processes, no sandbox, no store: the ceiling (``play_in_process``).

It imports ``arena`` from wherever the path finds it, so the benchmarks play it with a baseline
commit's code as with this tree's (``bench/interleave.py``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from multiprocessing import get_context
from multiprocessing.synchronize import Barrier
from typing import Any

from arena import loop
from arena.bots import load_bot
from arena.games.registry import get_game
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner
from arena.runner.terms import Limits
from arena.sandbox import SandboxError
from arena.sandbox.backends import make_sandbox
from arena.store.db import Store
from arena.store.models import BotVersion, Tournament
from arena.store.repo import bot_version, create_tournament
from arena.tournament import schedule
from arena.tournament.executors import LocalPool
from arena.tournament.scheduler import Scheduler

CEILING_S = 2.0
"""The in-process matches are played again until they have taken this long: one pass is short."""


def build(store: Store, game_name: str, games: int, rounds: int) -> int:
    """Create the tournament (duplicate deals, ``games`` per match) in ``store``; its id."""
    game = get_game(game_name)
    # The quick built-ins: throughput is the platform's, not a search bot's thinking time.
    specs = [f"builtin:{name}" for name in game.builtin_bots if name != "search"]
    names = [spec.removeprefix("builtin:") for spec in specs]
    if game.name == "kozel":
        plans = schedule.team_round_robin(names, seed=1, rounds=rounds)
    else:
        seats = max(game.min_seats, min(len(names), 3))
        plans = schedule.round_robin(names, seats, seed=1, rounds=rounds)
    with store.session() as session:
        versions = [
            bot_version(session, game.name, name, spec, None) for name, spec in zip(names, specs, strict=True)
        ]
        tournament = create_tournament(
            session,
            game=game.name,
            game_version=game.version,
            config={},
            kind="bench",
            entrants=versions,
            plans=[[names.index(name) for name in plan.entrants] for plan in plans],
            seeds=[plan.seed for plan in plans],
            games_per_match=games,
            duplicate=True,
            seed=1,
            seed_chosen=True,
            rated=False,
            creator=None,
        )
        return tournament.id


def play_local(store: Store, tournament_id: int, workers: int) -> float:
    """Play the tournament on a local pool of ``workers`` processes, its bots in the bubblewrap
    sandbox; the seconds it took. Exits where bubblewrap cannot run: unsandboxed built-ins would
    measure something production never does."""
    try:
        make_sandbox("bubblewrap")
    except SandboxError as error:
        raise SystemExit(f"the bots must play in the bubblewrap sandbox: {error}") from None
    os.environ["ARENA_SANDBOX"] = "bubblewrap"
    started = time.perf_counter()
    Scheduler(store, LocalPool(store.url, workers), only=tournament_id).run()
    return time.perf_counter() - started


@dataclass(frozen=True)
class Planned:
    """A recorded match, as the in-process runner plays it again."""

    game: str
    """``name@version``."""
    config: dict[str, Any]
    specs: list[str]
    names: list[str]
    games: int
    seed: int
    duplicate: bool


@dataclass(frozen=True)
class Played:
    """One match played in process: its wall time, the bots' decisions' and its results."""

    wall_s: float
    decide_s: float
    results: list[tuple[int, float]]
    """Per agent: wins and mean rank."""


def play_one(planned: Planned) -> Played:
    """Play a match in this process with in-process agents."""
    game = get_game(planned.game)
    started = time.perf_counter()
    agents = [
        InProcessAgent(load_bot(game.name, spec), name)
        for spec, name in zip(planned.specs, planned.names, strict=True)
    ]
    runner = MatchRunner(
        game,
        game.config_type.from_dict(planned.config),
        agents,
        games=planned.games,
        seed=planned.seed,
        duplicate=planned.duplicate,
        limits=Limits(),
    )
    record = loop.run(runner.run())
    return Played(
        wall_s=time.perf_counter() - started,
        decide_s=sum(sum(one.times_ms) for one in record.games) / 1000,
        results=[(row["wins"], row["mean_rank"]) for row in record.agent_summary()],
    )


def ready(barrier: Barrier) -> None:
    """A pool process's start: this module imported, it waits for the others (and the clock)."""
    barrier.wait()


def play_in_process(store: Store, tournament_id: int, workers: int) -> dict[str, float]:
    """Play the tournament's recorded matches again on the in-process runner, on ``workers``
    processes started (and their imports done) before the clock starts, for at least ``CEILING_S``.
    Its matches per minute, the share of the matches' wall time outside the bots' decisions, and
    how many matches ended otherwise than recorded (0: they are the very same matches)."""
    with store.session() as session:
        tournament = session.get_one(Tournament, tournament_id)
        plans, recorded = [], []
        for match in tournament.matches:
            versions = [session.get_one(BotVersion, version_id) for version_id in match.entrants]
            plans.append(
                Planned(
                    game=f"{tournament.game}@{tournament.game_version}",
                    config=dict(tournament.config),
                    specs=[version.spec for version in versions],
                    names=[version.bot.name for version in versions],
                    games=tournament.games_per_match,
                    seed=match.seed,
                    duplicate=tournament.duplicate,
                )
            )
            recorded.append([(seat.wins, seat.mean_rank) for seat in match.seats])
    context = get_context("spawn")
    barrier = context.Barrier(workers + 1)
    played: list[Played] = []
    elapsed = 0.0
    with context.Pool(workers, initializer=ready, initargs=(barrier,)) as pool:
        barrier.wait()
        while elapsed < CEILING_S:
            started = time.perf_counter()
            played += pool.map(play_one, plans, chunksize=1)
            elapsed += time.perf_counter() - started
    wall, deciding = sum(play.wall_s for play in played), sum(play.decide_s for play in played)
    return {
        "ceiling_per_minute": 60 * len(played) / elapsed,
        "ceiling_outside": 1 - deciding / wall,
        "differ": sum(
            play.results != results for play, results in zip(played[: len(recorded)], recorded, strict=True)
        ),
    }
