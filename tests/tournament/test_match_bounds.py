"""A match's bounds where it is played (``run_match``): the arena's memory, its wall time, its replay.

Issue 35, item 1: a kozel match of long games held every action of every game until it ended, and
then its whole replay as JSON (150 MB after one 100,000-decision game, 268 MB after three); and a
user's match could run for hours. Here a real store and the real ``run_match`` play the matches.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from sqlalchemy import select

from arena import loop
from arena.bots import load_bot
from arena.games.registry import get_game
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner
from arena.store import blobs
from arena.store.db import Store
from arena.store.models import Match, MatchStatus
from arena.store.repo import create_user
from arena.tournament import play, service
from arena.tournament.play import run_match
from arena.tournament.service import TournamentSpec

ROOT = Path(__file__).resolve().parents[2]

LONG_KOZEL = {"series_target": 100_000, "game_cap": 100_000, "action_cap": 5_000}
"""Every game of the match runs to 5,000 decisions: some 2.5 MB of record each, held today."""

PEAK_SCRIPT = textwrap.dedent(
    """
    # One kozel match of GAMES long games through run_match on a real store; the bots play in this
    # process (the memory measured is the arena's, and in-process bots play some ten times faster).
    import json, sys
    from sqlalchemy import select
    import arena.transport.process as process
    from arena.bots import load_bot
    from arena.runner.inprocess import InProcessAgent
    from arena.store.db import Store
    from arena.store.models import Match
    from arena.tournament import service
    from arena.tournament.play import run_match

    url, games, config = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
    playing = process.play_match

    async def in_process(game, config, programs, sandbox, names=None, on_game=None, **options):
        agents = [InProcessAgent(load_bot(game.name, "builtin:random"), name) for name in names]
        return await playing(game, config, agents, sandbox, names, on_game, **options)

    process.play_match = in_process
    store = Store(url)
    store.upgrade()
    with store.session() as session:
        spec = service.TournamentSpec(
            game="kozel", bots=["builtin:random", "builtin:heuristic"], games_per_match=games,
            seed=7, config=config,
        )
        service.create(session, spec, None, limited=False)
    with store.session() as session:
        match_id = session.scalars(select(Match.id)).first()
    status = run_match(match_id, url, "peak")
    peak = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    print(json.dumps({"status": status, "peak_kb": int(peak.split()[1])}))
    """
)


def peak_rss_kb(tmp_path: Path, games: int) -> dict[str, Any]:
    """Play one long kozel match of ``games`` games through ``run_match`` in a fresh process: its
    status and the process's peak resident memory (KiB)."""
    folder = tmp_path / f"games-{games}"
    folder.mkdir()
    url = f"sqlite:///{folder / 'arena.db'}"
    env = {**os.environ, "ARENA_HOME": str(folder / "home"), "ARENA_SANDBOX": "none"}
    done = subprocess.run(
        [sys.executable, "-c", PEAK_SCRIPT, url, str(games), json.dumps(LONG_KOZEL)],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    measured: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    store = Store(url)
    try:
        with store.session() as session:
            match = session.scalars(select(Match)).one()
            measured["replay"] = blobs.get(session, match.replay_blob) if match.replay_blob else b""
    finally:
        store.dispose()
    return measured


def test_the_arenas_memory_does_not_grow_with_the_length_of_a_match(tmp_path: Path) -> None:
    short = peak_rss_kb(tmp_path, 3)  # 15,000 decisions
    long = peak_rss_kb(tmp_path, 12)  # 45,000 decisions more: 25 MiB more at its peak, before
    assert short["status"] == long["status"] == MatchStatus.DONE
    grown_kb = long["peak_kb"] - short["peak_kb"]
    assert grown_kb < 10 * 1024, f"peak RSS {short['peak_kb']} KiB after 3 games, {long['peak_kb']} after 12"
    # The replay streamed out is a whole replay: every game, and it verifies.
    data = replay.parse(short["replay"], "the short match's replay")
    replay.check(data, "the short match's replay")
    assert [game["index"] for game in data["games"]] == [0, 1, 2]
    assert all(len(game["actions"]) == LONG_KOZEL["action_cap"] for game in data["games"])
    assert replay.verify(data) == []
    assert len(json.loads(long["replay"])["games"]) == 12


def test_a_spooled_replay_has_the_bytes_of_the_one_built_whole() -> None:
    game = get_game("believe")
    config = game.config_type()
    agents = [
        InProcessAgent(load_bot("believe", spec), name)
        for spec, name in (
            ("builtin:caller", "caller"),
            ("builtin:random", "random"),
            ("builtin:honest", "honest"),
        )
    ]
    record = loop.run(MatchRunner(game, config, agents, games=9, seed=11, duplicate=True).run())
    whole = json.dumps(replay.to_json(record), separators=(",", ":")).encode()
    spool = replay.ReplaySpool()
    try:
        for played in random.Random(3).sample(record.games, len(record.games)):  # in any order
            spool.add(record, played)
        streamed = b"".join(spool.chunks(record))
    finally:
        spool.close()
    assert streamed == whole
    assert replay.verify(replay.parse(streamed, "the spooled replay")) == []


def test_a_spool_over_its_cap_refuses_the_game_that_would_pass_it() -> None:
    game = get_game("edible")
    agents = [InProcessAgent(load_bot("edible", "builtin:random"), f"r{seat}") for seat in range(2)]
    record = loop.run(MatchRunner(game, game.config_type(), agents, games=3, seed=5).run())
    sizes = [len(json.dumps(replay.game_to_json(one), separators=(",", ":"))) for one in record.games]
    spool = replay.ReplaySpool(max_bytes=sizes[0] + sizes[1] + 1)
    try:
        spool.add(record, record.games[0])
        spool.add(record, record.games[1])
        try:
            spool.add(record, record.games[2])
        except replay.ReplayTooLarge as error:
            assert f"{sizes[0] + sizes[1] + 1:,} bytes" in str(error)
        else:
            raise AssertionError("a third game went past the spool's cap")
    finally:
        spool.close()


def test_a_users_match_over_its_wall_time_cap_stops_and_the_next_match_plays(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ARENA_MATCH_WALL_S", "3")
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    store.upgrade()
    try:
        with store.session() as session:
            user, _ = create_user(session, "long-player")
            long = TournamentSpec(
                game="believe", bots=["builtin:caller", "builtin:random"], games_per_match=1000
            )
            long_id = service.create(session, long, user).tournament.id
            short = TournamentSpec(
                game="edible", bots=["builtin:heuristic", "builtin:random"], games_per_match=2
            )
            short_id = service.create(session, short, user).tournament.id
        with store.session() as session:
            long_match = session.scalars(select(Match.id).where(Match.tournament_id == long_id)).one()
            short_match = session.scalars(select(Match.id).where(Match.tournament_id == short_id)).one()

        status = run_match(long_match, url, "capped")  # 1,000 believe games: a minute or more
        assert status == MatchStatus.FAILED_INFRASTRUCTURE
        with store.session() as session:
            match = session.get_one(Match, long_match)
            assert "wall-time cap of 3 s" in match.error, match.error
            assert match.replay_blob in ("", None) and match.finished_at is None
            assert match.worker == "" and match.lease_until is None

        assert run_match(short_match, url, "capped") == MatchStatus.DONE  # the worker is free
    finally:
        store.dispose()


def test_a_match_whose_replay_passes_its_cap_stops_and_the_next_match_plays(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(play, "MAX_MATCH_REPLAY_BYTES", 4000)  # an edible game's replay: 1 to 3 KB
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    store = Store(url)
    store.upgrade()
    try:
        with store.session() as session:
            user, _ = create_user(session, "wordy-player")
            spec = TournamentSpec(
                game="edible", bots=["builtin:heuristic", "builtin:random"], games_per_match=20
            )
            long_id = service.create(session, spec, user).tournament.id
        with store.session() as session:
            long_match = session.scalars(select(Match.id).where(Match.tournament_id == long_id)).one()
        assert run_match(long_match, url, "capped") == MatchStatus.FAILED_INFRASTRUCTURE
        with store.session() as session:
            match = session.get_one(Match, long_match)
            assert "the replay would pass its cap of 4,000 bytes" in match.error, match.error
            assert match.replay_blob in ("", None) and match.worker == ""
        monkeypatch.setattr(play, "MAX_MATCH_REPLAY_BYTES", 10**6)
        with store.session() as session:
            spec = TournamentSpec(
                game="edible", bots=["builtin:heuristic", "builtin:random"], games_per_match=2
            )
            short_id = service.create(session, spec, user).tournament.id
        with store.session() as session:
            short_match = session.scalars(select(Match.id).where(Match.tournament_id == short_id)).one()
        assert run_match(short_match, url, "capped") == MatchStatus.DONE
    finally:
        store.dispose()
