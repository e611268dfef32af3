"""The living ladder as a new user meets it: bots submitted with ``arena bot submit`` and the
scheduler service (``arena scheduler --max-matches N``) give every one of them games and a rating on
``arena ladder GAME`` with no tournament created, on the embedded default and on Celery workers with
PostgreSQL; and two pools that never met are shown apart until the scheduler bridges them."""

from __future__ import annotations

from pathlib import Path

from fleet import ROOT, Workers
from fleet import arena as arena_command
from services import PrivateRedis, shared_postgres_database
from sqlalchemy import select

from arena.store.db import Store
from arena.store.models import Bot, BotVersion, LadderState, Match, MatchStatus, Tournament

STARTER = ROOT / "sdk" / "examples" / "edible_starter.py"
BOTS = ("alpha", "beta", "gamma")


def arena(home: Path, *args: str, database: str | None = None) -> str:
    """Run an ``arena`` command with data folder ``home`` (and ``--db database``); its output."""
    done = arena_command(*args, *(["--db", database] if database else []), home=home)
    assert done.returncode == 0, f"arena {' '.join(args)}: {done.stdout[-3000:]}{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, done.stderr
    return done.stdout


def submit_three(home: Path, database: str | None = None, token: str | None = None) -> None:
    for name in BOTS:
        extra = ["--token", token] if token else []
        arena(
            home, "bot", "submit", "--game", "edible", "--name", name, str(STARTER), *extra, database=database
        )


def assert_rated_without_a_tournament(store: Store, shown: str) -> None:
    """Every submitted bot is on the printed ladder with games, and every match is a ladder match."""
    lines = {line.split()[1]: line for line in shown.splitlines() if line[:3].strip().isdigit()}
    for name in BOTS:
        assert name in lines, shown
        games = int(lines[name].split()[4])
        assert games > 0, lines[name]
    with store.session() as session:
        assert set(session.scalars(select(Tournament.kind))) == {"ladder"}
        statuses = session.scalars(select(Match.status)).all()
        # the scheduler published the order of its next picks: every bot stands in it
        submitted = set(session.scalars(select(BotVersion.id).join(Bot).where(Bot.owner_id.is_not(None))))
        queue = session.get_one(LadderState, "edible").queue
        assert len(submitted) == 3 and submitted <= set(queue), queue
    assert len(statuses) == 30 and set(statuses) == {MatchStatus.DONE}


def test_submitted_bots_are_played_and_rated_on_the_embedded_default(tmp_path: Path) -> None:
    home = tmp_path / "home"
    submit_three(home)
    said = arena(home, "scheduler", "--max-matches", "30", "--workers", "2")
    assert "30 ladder matches played" in said, said
    shown = arena(home, "ladder", "edible", "--stored")
    store = Store(f"sqlite:///{home / 'arena.db'}")
    assert_rated_without_a_tournament(store, shown)
    store.dispose()


def test_submitted_bots_are_played_and_rated_on_celery_workers_with_postgresql(
    tmp_path: Path, redis: PrivateRedis
) -> None:
    home = tmp_path / "home"
    with shared_postgres_database() as url:
        arena(home, "db", "upgrade", database=url)
        token = arena(home, "user", "create", "author", database=url).strip().splitlines()[-1]
        submit_three(home, url, token)
        workers = Workers(redis.url, home)
        try:
            workers.start(url, concurrency=2)
            scheduler = workers.scheduler(url, tmp_path / "scheduler.log", "--max-matches", "30")
            assert scheduler.wait(timeout=900) == 0, (tmp_path / "scheduler.log").read_text()[-3000:]
        finally:
            workers.stop()
        said = (tmp_path / "scheduler.log").read_text()
        assert "30 ladder matches played" in said, said
        store = Store(url)
        assert_rated_without_a_tournament(store, arena(home, "ladder", "edible", "--stored", database=url))
        store.dispose()


def ladder_sections(shown: str) -> tuple[set[str], set[str]]:
    """The bots ranked on a printed ladder, and those shown apart as not yet connected."""
    ranked, apart, below = set(), set(), False
    for line in shown.splitlines():
        if line.startswith("not yet connected"):
            below = True
        elif below and line.startswith("     ") and line.strip():
            apart.add(line.split()[0])
        elif not below and line[:3].strip().isdigit():
            ranked.add(line.split()[1])
    return ranked, apart


def test_two_pools_that_never_met_are_shown_apart_until_the_scheduler_bridges_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pools = (("p1", "p2", "p3"), ("q1", "q2"))
    for pool in pools:
        for name in pool:
            arena(home, "bot", "submit", "--game", "edible", "--name", name, str(STARTER))
        arena(
            home,
            *("tournament", "create", "--game", "edible", "--bots", *pool, "--seats", "2"),
            *("--games-per-match", "6", "--rated", "--run"),
        )
    ranked, apart = ladder_sections(arena(home, "ladder", "edible"))
    assert ranked == set(pools[0]) and apart == set(pools[1]), (ranked, apart)
    arena(home, "scheduler", "--max-matches", "4", "--workers", "2")
    shown = arena(home, "ladder", "edible", "--stored")
    ranked, apart = ladder_sections(shown)
    assert set(pools[0]) | set(pools[1]) <= ranked and not apart, shown
