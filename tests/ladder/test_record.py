"""The ladder of record follows landing matches: a full fit at first, then an incremental step per
landing match that agrees with a full refit (within 1 Elo for established bots), counts each match
once, and takes in bots it has not seen before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from fleet import sqlite_store
from sqlalchemy import select

from arena.ladder.record import Follower
from arena.ratings.fit import fit
from arena.ratings.ladder import fit_game, last_refit, refit
from arena.ratings.load import load_results
from arena.ratings.simulate import simulate_ffa
from arena.store.db import Store
from arena.store.models import GameOutcome, Match, MatchStatus, Rating, now
from arena.store.queries.ratings import revision
from arena.store.repo import bot_version, create_tournament


def field(store: Store, bots: int) -> tuple[int, list[int]]:
    """A tournament to hang matches on, and ``bots`` bot versions of edible."""
    with store.session() as session:
        versions = [bot_version(session, "edible", f"b{i}", "builtin:random", None) for i in range(bots)]
        tournament = create_tournament(
            session,
            game="edible",
            game_version=1,
            config={},
            kind="round_robin",
            entrants=versions,
            plans=[],
            seeds=[],
            games_per_match=10,
            duplicate=False,
            seed=1,
            seed_chosen=False,
            rated=True,
            creator=None,
        )
        return tournament.id, [version.id for version in versions]


def land(
    store: Store,
    tournament: int,
    versions: list[int],
    theta: np.ndarray,
    pairs: list[tuple[int, int]],
    seed: int,
) -> list[int]:
    """Matches of 10 two-seat games between the given bots (indexes), drawn from ``theta``, recorded
    as done: their ids."""
    rng = np.random.default_rng(seed)
    landed = []
    with store.session() as session:
        first = session.scalar(
            select(Match.index).where(Match.tournament_id == tournament).order_by(Match.index.desc()).limit(1)
        )
        index = 0 if first is None else first + 1
        for a, b in pairs:
            games = simulate_ffa(theta[[a, b]], 1, 10, 2, rng)
            match = Match(
                tournament_id=tournament,
                index=index,
                seed=index,
                entrants=[versions[a], versions[b]],
                status=MatchStatus.DONE,
                finished_at=now(),
            )
            session.add(match)
            session.flush()
            for game, (bots, ranks, _) in enumerate(games.games()):
                seats = [versions[[a, b][bot]] for bot in bots]
                session.add(
                    GameOutcome(
                        match_id=match.id,
                        game="edible",
                        game_index=game,
                        deal=game,
                        seats=seats,
                        ranks=ranks,
                        statuses=["ok", "ok"],
                    )
                )
            landed.append(match.id)
            index += 1
    return landed


def stored_elo(store: Store, versions: list[int]) -> np.ndarray:
    with store.session() as session:
        elo = dict(session.execute(select(Rating.bot_version_id, Rating.elo)).all())
    return np.array([elo[version] for version in versions])


def test_each_landing_match_moves_the_stored_ladder_as_a_refit_would(tmp_path: Path) -> None:
    store = sqlite_store(tmp_path)
    tournament, versions = field(store, 9)
    theta = np.linspace(-1.0, 1.0, 9)
    rng = np.random.default_rng(3)
    old = [(int(a), int(b)) for a, b in (rng.choice(8, size=2, replace=False) for _ in range(60))]
    first = land(store, tournament, versions, theta, old, seed=4)
    follower = Follower(store, "edible")
    assert follower.follow() == first  # the first look refits in full
    assert follower.follow() == []
    with store.session() as session:
        before = revision(session, "edible")
    # One match between established bots, one that brings a bot never seen before.
    landed = land(store, tournament, versions, theta, [(0, 7), (8, 3)], seed=5)
    assert follower.follow() == landed
    assert follower.follow() == []  # counted once
    with store.session() as session:
        assert revision(session, "edible") > before
    refitted = fit(load_results(store.engine, "edible"))
    assert refitted.bot_ids is not None
    truth = dict(zip(refitted.bot_ids.tolist(), refitted.elo.tolist(), strict=True))
    stepped = stored_elo(store, versions)
    expected = np.array([truth[version] for version in versions])
    assert np.max(np.abs(stepped[:8] - expected[:8])) < 1.0, stepped - expected
    assert abs(stepped[8] - expected[8]) < 10.0, stepped - expected
    store.dispose()


def test_a_refit_that_read_older_results_is_not_written_over_a_newer_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = sqlite_store(tmp_path)
    tournament, versions = field(store, 5)
    theta = np.linspace(-1.0, 1.0, 5)
    land(store, tournament, versions, theta, [(0, 1)] * 4, seed=6)
    follower = Follower(store, "edible")
    follower.follow()
    with store.session() as session:
        stamp = last_refit(session, "edible")
    stale = fit_game(store.engine, "edible")  # what a slow refit read before the next matches
    # Three more bots meet; another process refits with every result (a tournament's end, say).
    land(store, tournament, versions, theta, [(2, 3), (3, 4), (2, 4)] * 2, seed=7)
    with store.session() as session:
        refit(store.engine, session, "edible")
    ranks = stored_ranks(store)
    assert ranks[versions[2]] is not None and ranks[versions[0]] is None  # the three are the main pool
    # The slow refit ends now: it must not write its older ladder over the newer one.
    monkeypatch.setattr("arena.ladder.record.fit_game", lambda *args, **kwargs: stale)
    assert follower._refit(stamp) == []
    assert stored_ranks(store) == ranks
    monkeypatch.undo()
    follower.follow()  # someone else refitted since its own: it refits again, with every result
    assert stored_ranks(store) == ranks
    assert follower.ladder is not None and follower.ladder.n_bots == 5
    store.dispose()


def stored_ranks(store: Store) -> dict[int, int | None]:
    with store.session() as session:
        return dict(session.execute(select(Rating.bot_version_id, Rating.rank)).all())
