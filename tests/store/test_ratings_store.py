"""Ratings in the store: live Elo moves as each match lands, the refit reconciles it, history for plots."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select
from test_store import files_of, played, tournament_with_one_match

from arena.games.registry import get_game
from arena.ratings.fit import fit
from arena.ratings.ladder import apply_live, ladder_rows, land_result, refit
from arena.ratings.load import load_results
from arena.store.db import Store
from arena.store.errors import StoreError
from arena.store.models import GameOutcome, Match, Rating, RatingPoint
from arena.store.queries.ratings import revision
from arena.store.repo import claim, create_tournament, latest_version


def land_match(store: Store, games: int = 8, *, rated: bool = True) -> tuple[int, list[int]]:
    match_id = tournament_with_one_match(store, rated=rated)
    record = played(games=games)
    with store.session() as session:
        match = claim(session, match_id, "w1", 3, timedelta(hours=1))
        assert match is not None
        entrants = list(match.entrants)
        assert land_result(session, match_id, "w1", record, files_of(record))
    return match_id, entrants


def test_a_landing_match_moves_live_elo_conserving_the_total_and_records_history(store: Store) -> None:
    with store.session() as session:
        assert revision(session, "edible") == 0
    match_id, entrants = land_match(store)
    with store.session() as session:
        ratings = {row.bot_version_id: row for row in session.scalars(select(Rating))}
        assert set(ratings) == set(entrants)
        assert sum(row.live_elo for row in ratings.values()) == pytest.approx(3000.0)
        assert all(row.live_elo != 1500.0 and row.live_games == 8 for row in ratings.values())
        assert all(row.elo is None for row in ratings.values())  # no fit yet
        points = session.scalars(select(RatingPoint).order_by(RatingPoint.id)).all()
        assert [(p.kind, p.match_id, p.games) for p in points] == [("live", match_id, 8)] * 2
        assert {p.bot_version_id: p.elo for p in points} == {k: r.live_elo for k, r in ratings.items()}
        assert revision(session, "edible") >= 1
        rows = ladder_rows(session, "edible")
        # not fitted yet: ordered by live Elo, all provisional, no interval
        assert [row.elo for row in rows] == sorted((r.live_elo for r in ratings.values()), reverse=True)
        assert all(row.provisional and row.halfwidth is None for row in rows)
        assert {row.owner for row in rows} == {"builtin"}


def test_a_result_recorded_twice_does_not_move_ratings_twice(store: Store) -> None:
    match_id, _ = land_match(store)
    with store.session() as session:
        before = {row.bot_version_id: row.live_elo for row in session.scalars(select(Rating))}
    with pytest.raises(StoreError), store.session() as session:
        session.get(Match, match_id).status = "running"  # type: ignore[union-attr]
        again = played(games=8)
        land_result(session, match_id, "w1", again, files_of(again))
    with store.session() as session:
        assert {row.bot_version_id: row.live_elo for row in session.scalars(select(Rating))} == before
        assert len(session.scalars(select(RatingPoint)).all()) == 2


def test_the_refit_is_the_ladder_of_record_and_resets_live_elo(store: Store) -> None:
    land_match(store, games=12)
    with store.session() as session:
        ladder = refit(store.engine, session, "edible")
    assert ladder is not None
    expected = fit(load_results(store.engine, "edible"))
    with store.session() as session:
        rows = ladder_rows(session, "edible")
        assert [row.rank for row in rows] == [1, 2]
        by_id = {row.bot_id: row for row in expected.rows()}
        for row in rows:
            fitted = by_id[row.version_id]
            assert row.elo == pytest.approx(fitted.elo) and row.live_elo == pytest.approx(fitted.elo)
            assert row.halfwidth == pytest.approx(fitted.halfwidth) and row.games == 12
        assert rows[0].superiority == pytest.approx(expected.rows()[0].superiority)
        kinds = [p.kind for p in session.scalars(select(RatingPoint).order_by(RatingPoint.id))]
        assert kinds == ["live", "live", "fit", "fit"]


def test_refit_without_results_changes_nothing(store: Store) -> None:
    with store.session() as session:
        assert refit(store.engine, session, "kozel") is None
        assert ladder_rows(session, "kozel") == []


def test_an_unrated_match_lands_its_results_and_moves_no_rating(store: Store) -> None:
    match_id, _ = land_match(store, rated=False)
    with store.session() as session:
        assert len(session.scalars(select(GameOutcome).where(GameOutcome.match_id == match_id)).all()) == 8
        assert session.scalars(select(Rating)).all() == [], "the store makes no rating (the ratings do)"
        assert session.scalars(select(RatingPoint)).all() == []
        assert ladder_rows(session, "edible") == []
        assert refit(store.engine, session, "edible") is None  # nothing rated to fit


def test_kozel_live_elo_moves_partners_together_and_a_draw_moves_nobody(store: Store) -> None:
    names = ("search", "random", "heuristic")
    with store.session() as session:
        versions = [latest_version(session, "kozel", f"builtin:{name}") for name in names]
        ids = [version.id for version in versions]
        tournament = create_tournament(
            session,
            game="kozel",
            game_version=get_game("kozel").version,
            config={},
            kind="team_round_robin",
            entrants=versions,
            plans=[[0, 1, 2, 1]],
            seeds=[1],
            games_per_match=2,
            duplicate=False,
            seed=0,
            seed_chosen=False,
            rated=True,
            creator=None,
        )
        match = tournament.matches[0].id
        seats = [ids[0], ids[1], ids[2], ids[1]]
        # seats 0 and 2 (search, heuristic) beat seats 1 and 3 (random twice), then a drawn series
        changes = apply_live(session, "kozel", match, [(seats, [0, 2, 0, 2])])
        assert changes[ids[0]] == pytest.approx(changes[ids[2]]) and changes[ids[0]] > 0
        assert changes[ids[1]] == pytest.approx(-2 * changes[ids[0]])  # random held both losing seats
        before = {row.bot_version_id: row.live_elo for row in session.scalars(select(Rating))}
        drawn = apply_live(session, "kozel", match, [(seats, [0, 0, 0, 0])])
        assert all(change == 0 for change in drawn.values())
        assert {row.bot_version_id: row.live_elo for row in session.scalars(select(Rating))} == before
