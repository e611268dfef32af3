"""Tournaments on real executors, for tests: tournaments of built-in bots, stores, real
``arena`` service processes (workers, schedulers), and checks that every match landed once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from services import shared_postgres_database
from sqlalchemy import func, select

from arena.games.registry import get_game
from arena.store.db import Store
from arena.store.models import Bot, BotVersion, GameOutcome, Match, MatchStatus, SeatResult
from arena.store.repo import bot_version, create_tournament
from arena.tournament import schedule
from arena.tournament.executors import CeleryWorkers, LocalPool
from arena.tournament.scheduler import Scheduler

ROOT = Path(__file__).resolve().parents[1]


def make_tournament(
    store: Store,
    bots: dict[str, str],
    seats: int,
    games: int,
    seed: int,
    rounds: int = 1,
    game: str = "edible",
    rated: bool = False,
) -> int:
    """A round robin among ``bots`` (name -> built-in spec): free-for-all, or by teams for kozel;
    ``rated``: its matches move the ladder, as if the platform had scheduled it (``seed`` taken as
    drawn by the platform), else unrated with a chosen seed."""
    names = list(bots)
    if game == "kozel":
        plans = schedule.team_round_robin(names, seed=seed, rounds=rounds)
    else:
        plans = schedule.round_robin(names, seats, seed=seed, rounds=rounds)
    with store.session() as session:
        versions = [bot_version(session, game, name, spec, None) for name, spec in bots.items()]
        tournament = create_tournament(
            session,
            game=game,
            game_version=get_game(game).version,
            config={},
            kind="round_robin",
            entrants=versions,
            plans=[[names.index(name) for name in plan.entrants] for plan in plans],
            seeds=[plan.seed for plan in plans],
            games_per_match=games,
            duplicate=True,
            seed=seed,
            seed_chosen=not rated,
            rated=rated,
            creator=None,
        )
        return tournament.id


def arena(*args: str, home: Path, token: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run an ``arena`` command as a user would: data folder ``home``, the API token ``token``, no
    store or token from this environment."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("ARENA_API_TOKEN", "ARENA_DATABASE_URL")
    }
    env["ARENA_HOME"] = str(home)
    if token is not None:
        env["ARENA_API_TOKEN"] = token
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )


THREE_BOTS = {"r0": "builtin:random", "h0": "builtin:heuristic", "r1": "builtin:random"}

PLAY_ONE = (
    "import sys; from arena.tournament import play; print(play.run_match(int(sys.argv[1]), sys.argv[2]))"
)
"""A worker's whole part in a match (what ``arena worker``'s task calls), to run in a process of
its own: ``python -c PLAY_ONE MATCH_ID DATABASE_URL`` prints the match's outcome."""


@contextmanager
def database(kind: str, folder: Path) -> Iterator[str]:
    """A fleet's database: a throwaway one on the shared PostgreSQL, or an SQLite file in ``folder``
    (none of the data folders)."""
    if kind == "postgresql":
        with shared_postgres_database() as url:
            yield url
    else:
        yield f"sqlite:///{folder / 'arena.db'}"


def sqlite_store(home: Path) -> Store:
    """A new SQLite store in ``home``, its schema made."""
    store = Store(f"sqlite:///{home / 'arena.db'}")
    store.upgrade()
    return store


def outcomes(store: Store, tournament_id: int) -> list[tuple[int, int, tuple[int, ...], tuple[int, ...]]]:
    with store.session() as session:
        rows = session.execute(
            select(Match.index, GameOutcome.game_index, GameOutcome.seats, GameOutcome.ranks)
            .join(Match, GameOutcome.match_id == Match.id)
            .where(Match.tournament_id == tournament_id)
            .order_by(Match.index, GameOutcome.game_index)
        ).all()
    return [(index, game, tuple(seats), tuple(ranks)) for index, game, seats, ranks in rows]


def assert_complete_exactly_once(store: Store, tournament_id: int, games: int) -> None:
    with store.session() as session:
        matches = session.scalars(select(Match).where(Match.tournament_id == tournament_id)).all()
        assert {match.status for match in matches} == {MatchStatus.DONE}
        for match in matches:
            recorded = session.scalar(select(func.count()).where(GameOutcome.match_id == match.id))
            assert recorded == games, f"match {match.index} has {recorded} outcomes"
            seats = session.scalar(select(func.count()).where(SeatResult.match_id == match.id))
            assert seats == len(match.entrants)


def submitted_and_played(
    home: Path, folders: dict[str, Path], game: str, games: int
) -> list[tuple[str, str]]:
    """On the embedded default in ``home``: ``arena bot submit`` each folder under its name (it
    must pass validation), a tournament of them and ``builtin:random`` run to its end, every match
    complete once; each submitted bot's (name, status) in every game it played, in order."""
    for name, folder in folders.items():
        submit = arena("bot", "submit", str(folder), "--name", name, "--game", game, home=home)
        assert submit.returncode == 0, f"{submit.stdout}\n{submit.stderr}"
        assert f"bot {name} version" in submit.stdout and "passed validation" in submit.stdout
    create = arena(
        "tournament", "create", "--game", game, "--bots", *folders, "builtin:random",
        "--games-per-match", str(games), "--seed", "5", home=home,
    )  # fmt: skip
    assert create.returncode == 0, f"{create.stdout}\n{create.stderr}"
    run = arena("tournament", "run", "1", home=home)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        assert_complete_exactly_once(store, 1, games)
        with store.session() as session:
            submitted = dict(
                session.execute(
                    select(BotVersion.id, Bot.name).join(Bot).where(Bot.name.in_(folders), Bot.game == game)
                ).all()
            )
            played = session.scalars(
                select(GameOutcome).join(Match).where(Match.tournament_id == 1).order_by(GameOutcome.id)
            ).all()
            return [
                (submitted[version], status)
                for outcome in played
                for version, status in zip(outcome.seats, outcome.statuses, strict=True)
                if version in submitted
            ]
    finally:
        store.dispose()


class Workers:
    """Real ``arena`` service processes on a given broker: Celery workers and schedulers."""

    def __init__(self, broker: str, home: Path) -> None:
        self.broker, self.home = broker, home
        self.processes: list[subprocess.Popen[bytes]] = []

    def start(
        self, database: str, concurrency: int = 1, log: Path | None = None, name: str = ""
    ) -> subprocess.Popen[bytes]:
        """A worker on ``database``, which it knows from its own environment (tasks carry ids only),
        its output appended to ``log`` if given (at the INFO level, the most a worker says)."""
        return self._arena(
            database,
            log,
            "worker",
            "--concurrency",
            str(concurrency),
            "--loglevel",
            "INFO" if log else "WARNING",
            *(["--hostname", name] if name else []),
        )

    def scheduler(self, database: str, log: Path, *options: str) -> subprocess.Popen[bytes]:
        """The scheduler service (``arena scheduler --executor celery``), its output appended to ``log``."""
        return self._arena(database, log, "scheduler", "--executor", "celery", *options)

    def _arena(self, database: str, log: Path | None, *arguments: str) -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "ARENA_BROKER_URL": self.broker,
            "ARENA_HOME": str(self.home),
            "ARENA_DATABASE_URL": database,
        }
        command = [sys.executable, "-m", "arena.cli", *arguments]
        with open(log or os.devnull, "ab") as output:
            process = subprocess.Popen(
                command, env=env, cwd=ROOT, start_new_session=True, stdout=output, stderr=output
            )
        self.processes.append(process)
        return process

    def kill(self, process: subprocess.Popen[bytes]) -> None:
        """kill -9 of the process and everything it started (a worker's bot processes too)."""
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def run_local(tournament_id: int, url: str, workers: int) -> None:
    """A stand-in scheduler plays the tournament on a local pool."""
    Scheduler(Store(url), LocalPool(url, workers), only=tournament_id).run()


def run_celery(tournament_id: int, url: str, **options: Any) -> None:
    """A stand-in scheduler plays the tournament on the Celery workers."""
    Scheduler(Store(url), CeleryWorkers(queue_ahead=4), only=tournament_id, **options).run()
