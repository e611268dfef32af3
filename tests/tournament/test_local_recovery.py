"""The embedded executor recovers: Ctrl-C gives back what it held, and a rerun finishes the
tournament; a match that cannot be played fails visibly, with its reason, after its attempts, and
`arena tournament retry` sends it back; the exit code says whether the tournament is complete."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import delete, select

from arena.store.db import Store
from arena.store.models import Blob, BotVersion, GameOutcome, Match, MatchStatus

ROOT = Path(__file__).resolve().parents[2]


def arena(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("ARENA_API_TOKEN", "ARENA_DATABASE_URL")
    }
    env["ARENA_HOME"] = str(home)
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        env=env,
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def statuses(store: Store) -> list[str]:
    with store.session() as session:
        return list(session.scalars(select(Match.status).order_by(Match.id)))


def running(home: Path) -> tuple[Store, subprocess.Popen[str]]:
    """A tournament of 4 long matches, and its run on 2 local processes once a match plays."""
    create = arena(
        home,
        *("tournament", "create", "--game", "edible", "--bots", "builtin:heuristic", "builtin:random"),
        *("--games-per-match", "300", "--rounds", "4"),
    )
    assert create.wait(timeout=120) == 0, create.communicate()
    store = Store(f"sqlite:///{home / 'arena.db'}")
    run = arena(home, "tournament", "run", "1", "--workers", "2")
    deadline = time.monotonic() + 60
    while MatchStatus.RUNNING not in statuses(store) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert MatchStatus.RUNNING in statuses(store)
    return store, run


def test_ctrl_c_gives_back_its_matches_and_a_rerun_finishes_them_exactly_once(tmp_path: Path) -> None:
    store, run = running(tmp_path)
    os.killpg(run.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    _, stderr = run.communicate(timeout=60)
    assert run.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    assert MatchStatus.RUNNING not in statuses(store)  # given back at once, not left to a lease
    with store.session() as session:
        assert set(session.scalars(select(Match.attempts).where(Match.status == MatchStatus.PENDING))) <= {0}
    rerun = arena(tmp_path, "tournament", "run", "1", "--workers", "2")
    _, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, stderr
    assert statuses(store) == [MatchStatus.DONE] * 4
    with store.session() as session:
        assert len(session.scalars(select(GameOutcome.id)).all()) == 4 * 300
    store.dispose()
    # An incomplete tournament says so in its exit code.
    with store.session() as session:
        session.get(Match, 1).status = MatchStatus.FAILED_INFRASTRUCTURE  # type: ignore[union-attr]
    failed = arena(tmp_path, "tournament", "run", "1")
    _, stderr = failed.communicate(timeout=120)
    assert failed.returncode == 1 and "arena tournament retry 1" in stderr, stderr
    retry = arena(tmp_path, "tournament", "retry", "1")
    assert retry.wait(timeout=60) == 0
    assert statuses(store)[0] == MatchStatus.PENDING


def test_a_match_that_cannot_be_played_fails_with_its_reason_and_a_retry_finishes_it(tmp_path: Path) -> None:
    starter = ROOT / "sdk" / "examples" / "edible_starter.py"
    submit = ("bot", "submit", "--game", "edible", "--name", "starter", str(starter))
    assert arena(tmp_path, *submit).wait(timeout=300) == 0
    create = ("tournament", "create", "--game", "edible", "--bots", "starter", "builtin:random")
    assert arena(tmp_path, *create, "--games-per-match", "3", "--rounds", "2").wait(timeout=120) == 0
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    # The bot's code is lost everywhere: no host can play its matches.
    with store.session() as session:
        version = session.scalars(select(BotVersion).where(BotVersion.code_blob != "")).one()
        session.execute(delete(Blob))
        digest = version.spec.removeprefix("artifact:")
    for copy in (tmp_path / "artifacts" / digest, tmp_path / "blobs"):
        subprocess.run(["rm", "-rf", str(copy)], check=True)
    failed = arena(tmp_path, "tournament", "run", "1", "--workers", "2")
    _, stderr = failed.communicate(timeout=300)
    assert failed.returncode == 1, stderr
    assert "Traceback" not in stderr, stderr
    assert f"match 1 failed_infrastructure: infrastructure: bot version {version.id}" in stderr, stderr
    assert "2 matches failed: `arena tournament retry 1` plays them again" in stderr, stderr
    with store.session() as session:
        assert set(session.scalars(select(Match.attempts))) == {3}
    assert statuses(store) == [MatchStatus.FAILED_INFRASTRUCTURE] * 2
    # The code comes back (sent again), the failed matches are sent back, and a run finishes them.
    assert arena(tmp_path, *submit).wait(timeout=300) == 0
    assert arena(tmp_path, "tournament", "retry", "1").wait(timeout=60) == 0
    rerun = arena(tmp_path, "tournament", "run", "1", "--workers", "2")
    _, stderr = rerun.communicate(timeout=300)
    assert rerun.returncode == 0, stderr
    assert statuses(store) == [MatchStatus.DONE] * 2
    with store.session() as session:
        assert len(session.scalars(select(GameOutcome.id)).all()) == 2 * 3
    store.dispose()


def test_a_pool_process_that_dies_mid_match_costs_only_its_matches_lease(tmp_path: Path) -> None:
    # A process of the local pool ended abruptly (in one run, SIGABRT): the pool was broken for
    # good, every later send failed after taking its place, and the scheduler waited forever
    # with no process left.
    store, run = running(tmp_path)
    pool = subprocess.run(
        ["pgrep", "-P", str(run.pid), "-f", "spawn_main"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert len(pool) == 2, pool
    os.kill(int(pool[0]), signal.SIGKILL)
    _, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, stderr
    assert "a process of the local pool ended abruptly" in stderr, stderr
    assert "Traceback" not in stderr, stderr
    assert statuses(store) == [MatchStatus.DONE] * 4
    with store.session() as session:
        assert len(session.scalars(select(GameOutcome.id)).all()) == 4 * 300
    store.dispose()
