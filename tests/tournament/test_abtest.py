"""A/B tests: in the store (which bots, the bounds, the quota, the stop at a verdict, the cap, a
cancel, failed matches) with results written as matches land, and for real in the sandbox from the
command line (heuristic beats random in edible; a bot against itself reaches the cap)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fleet import arena
from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.ratings import rated, sprt
from arena.runner.deals import seating_for
from arena.store.db import Store
from arena.store.errors import NotAllowed, StoreError
from arena.store.models import AbTest, GameOutcome, Match, MatchStatus, User, now
from arena.store.repo import bot_version, create_user, latest_version
from arena.tournament import abtest, limits, quota

EASY = sprt.Hypotheses(elo0=0, elo1=50)


def spec(
    game: str = "edible", new: str = "builtin:heuristic", old: str = "builtin:random", **more: Any
) -> abtest.TestSpec:
    return abtest.TestSpec(game=game, new=new, old=old, **more)


def matches(session: Session, test: AbTest, *statuses: str) -> list[Match]:
    query = select(Match).where(Match.tournament_id == test.tournament_id).order_by(Match.index)
    return [m for m in session.scalars(query) if not statuses or m.status in statuses]


def land_ranks(session: Session, match: Match, games: int, rank: Callable[[int, int], int]) -> None:
    """Record ``match`` done after ``games`` games, agent ``a`` finishing game ``g`` at ``rank(g, a)``."""
    agents = len(match.entrants)
    for index in range(games):
        at = seating_for(index, agents, True)
        session.add(
            GameOutcome(
                match_id=match.id,
                game="x",
                game_index=index,
                deal=index // agents,
                seats=[match.entrants[agent] for agent in at],
                ranks=[rank(index, agent) for agent in at],
                statuses=["ok"] * agents,
            )
        )
    match.status, match.finished_at = MatchStatus.DONE, now()
    session.flush()


def land(session: Session, match: Match, new_scores: list[float]) -> None:
    """Record ``match`` done, NEW scoring ``new_scores`` game by game (1 ahead, 1/2 level, 0 behind)."""
    ranks = [{1.0: (0, 1), 0.5: (0, 0), 0.0: (1, 0)}[score] for score in new_scores]
    land_ranks(session, match, len(ranks), lambda index, agent: ranks[index][agent % 2])


def test_a_test_adds_matches_as_they_land_and_stops_at_its_verdict(store: Store) -> None:
    with store.session() as session:
        test = abtest.create(session, spec(hypotheses=EASY, games_per_match=8), None)
        tournament = test.tournament
        assert tournament.kind == abtest.KIND and tournament.duplicate and not rated.is_rated(tournament)
        first = matches(session, test)
        assert len(first) == abtest.IN_FLIGHT
        assert [m.entrants for m in first] == [[test.new_version_id, test.old_version_id]] * 2
        abtest.advance(session)  # nothing landed: nothing added
        assert len(matches(session, test)) == abtest.IN_FLIGHT
        land(session, first[0], [1.0, 0.5, 1.0, 0.0, 1.0, 1.0, 0.5, 1.0])
        abtest.advance(session)
        assert len(matches(session, test, MatchStatus.PENDING)) == abtest.IN_FLIGHT and test.verdict == ""
        while test.verdict == "":
            land(session, matches(session, test, MatchStatus.PENDING)[0], [1.0, 1.0, 1.0, 0.5] * 2)
            abtest.advance(session)
        assert test.verdict == sprt.BETTER and test.finished_at is not None
        assert not matches(session, test, MatchStatus.PENDING, MatchStatus.RUNNING)
        report = abtest.report(session, test)
        assert report.state.verdict == sprt.BETTER and report.state.llr >= report.state.upper
        assert [games for games, _ in report.history] == list(range(8, report.state.games + 1, 8))
        assert report.history[-1][1] == pytest.approx(report.state.llr)
        assert report.state.clusters == report.state.games // 2  # a deal is a cluster of 2 games
        void = matches(session, test, MatchStatus.VOID)
        assert void and all("the A/B test ended: better" in m.error for m in void)


def test_kozel_seats_new_and_old_as_sides_and_a_test_stops_at_its_cap(store: Store) -> None:
    with store.session() as session:
        test = abtest.create(session, spec("kozel", max_games=24, games_per_match=8), None)
        new, old = test.new_version_id, test.old_version_id
        assert [m.entrants for m in matches(session, test)] == [[new, old, new, old]] * 2
        for _ in range(3):
            land(session, matches(session, test, MatchStatus.PENDING)[0], [1.0, 0.0] * 4)
            abtest.advance(session)
        assert test.verdict == sprt.CAP and len(matches(session, test)) == 3  # 24 games: 3 matches
        assert abtest.report(session, test).state.elo == pytest.approx(0)


def test_a_cancelled_test_and_one_whose_matches_fail_stop_saying_why(store: Store) -> None:
    with store.session() as session:
        cancelled = abtest.create(session, spec(), None)
        for match in matches(session, cancelled):
            match.status = MatchStatus.VOID
        failing = abtest.create(session, spec(), None)
        for _ in range(abtest.FAILED_LIMIT):
            matches(session, failing, MatchStatus.PENDING)[0].status = MatchStatus.FAILED_INFRASTRUCTURE
            session.flush()
            abtest.advance(session)
        assert cancelled.verdict == "cancelled"
        assert failing.verdict == f"stopped: {abtest.FAILED_LIMIT} matches failed"
        assert not matches(session, failing, MatchStatus.PENDING)


def land_seat(session: Session, match: Match, agent0_ranks: list[int]) -> None:
    """Record ``match`` done, agent 0 finishing at these ranks game by game, every other seat at 1."""
    land_ranks(
        session, match, len(agent0_ranks), lambda index, agent: agent0_ranks[index] if agent == 0 else 1
    )


def test_a_panel_test_compares_new_and_old_seated_alike_on_the_same_deals(store: Store) -> None:
    with store.session() as session:
        panel = ("builtin:random", "builtin:heuristic")
        test = abtest.create(session, spec(hypotheses=EASY, games_per_match=6, panel=panel), None)
        random, heuristic = (latest_version(session, "edible", name).id for name in panel)
        assert test.panel == [random, heuristic]
        first = matches(session, test)
        new, old = test.new_version_id, test.old_version_id
        assert [m.entrants for m in first] == [[new, random, heuristic], [old, random, heuristic]] * 2
        assert first[0].seed == first[1].seed != first[2].seed == first[3].seed
        land_seat(session, first[0], [0, 0, 2, 0, 1, 0])
        abtest.advance(session)  # half a pair: nothing compared yet, nothing added
        assert abtest.landed(session, test).games == 0 and len(matches(session, test)) == 4
        land_seat(session, first[1], [2, 0, 0, 2, 1, 2])
        done = abtest.landed(session, test)
        # deal 0: NEW ahead, level, behind; deal 1: ahead, level, ahead
        assert done.scores.tolist() == [0.5, pytest.approx(2.5 / 3)] and done.games == 12
        abtest.advance(session)
        assert len(matches(session, test)) == 6  # a pair added
        while test.verdict == "":
            waiting = matches(session, test, MatchStatus.PENDING)
            land_seat(session, waiting[0], [0] * 6)
            land_seat(session, waiting[1], [1] * 6)
            abtest.advance(session)
        assert test.verdict == sprt.BETTER and abtest.report(session, test).state.games % 12 == 0
        with pytest.raises(StoreError, match="side against side"):
            abtest.create(session, spec("kozel", panel=("builtin:random",)), None)
        with pytest.raises(StoreError, match="at most 5 bots, not 6"):
            abtest.create(session, spec(panel=("builtin:random",) * 6), None)
        with pytest.raises(StoreError, match="multiple of 3"):
            abtest.create(session, spec(panel=panel, games_per_match=4), None)


def test_which_bots_a_user_may_test_and_the_bounds(store: Store) -> None:
    with store.session() as session:
        ann, ben = create_user(session, "ann")[0], create_user(session, "ben")[0]
        versions = [bot_version(session, "edible", "anns", f"artifact:{n}", ann) for n in range(3)]
        for version in versions[:2]:
            version.validated = True
        old, new = versions[0].id, versions[1].id
        test = abtest.create(session, spec(new=f"anns@{new}", old=f"anns@{old}"), ann)
        assert (test.new_version_id, test.old_version_id) == (new, old)
        assert abtest.create(session, spec(new="anns", old="builtin:random"), ann).new_version_id == new
        for who, name, error, message in (
            (ben, "anns", NotAllowed, "anns is not open to others"),
            (ann, f"anns@{versions[2].id}", StoreError, "has not passed validation"),
            (ann, "anns@999999", StoreError, "has no version 999999"),
            (ann, "anns@x", StoreError, "a version id, a whole number"),
            (ann, "anns@²", StoreError, "a version id, a whole number"),
            (ann, f"anns@{2**70}", StoreError, f"has no version {2**70}"),
            (ann, "nobody", StoreError, "no edible bot named 'nobody'"),
            (ann, "builtin:nothing", StoreError, "nothing"),
        ):
            with pytest.raises(error, match=message):
                abtest.create(session, spec(new=name), who)
        refused: list[tuple[dict[str, Any], str]] = [
            ({"games_per_match": 3}, "multiple of 2 from 2 to 48, not 3"),
            ({"games_per_match": 50}, "not 50"),
            ({"max_games": 10, "games_per_match": 12}, "from the games of one match"),
            ({"max_games": limits.MAX_TEST_GAMES + 1}, f"to {limits.MAX_TEST_GAMES}"),
        ]
        for bad, message in refused:
            with pytest.raises(StoreError, match=message):
                abtest.create(session, spec(**bad), ann)
        with pytest.raises(StoreError, match="multiple of 4"):
            abtest.create(session, spec("kozel", games_per_match=6), ann)
        # two unfinished already: ann's quota of tournaments is full, and an A/B test is one
        with pytest.raises(quota.QuotaError, match="unfinished tournaments"):
            abtest.create(session, spec(), session.get_one(User, ann.id))
        assert latest_version(session, "edible", "builtin:random").bot.open_to_others


def verdict_and_games(stdout: str) -> tuple[str, int]:
    verdict = re.search(r"^verdict: (.*)$", stdout, re.M)
    games = re.findall(r"^games (\d+) ", stdout, re.M)
    assert verdict is not None and games, stdout
    return verdict.group(1), int(games[-1])


def test_heuristic_is_better_than_random_well_before_the_cap(tmp_path: Path) -> None:
    """Edible from the command line (kozel's real run is tests/web/test_abtests.py's, from the API)."""
    words = ["bot", "test", "builtin:heuristic", "--against", "builtin:random", "--game", "edible"]
    run = arena(*words, "--elo1", "50", "--games-per-match", "48", "--max-games", "960", home=tmp_path)
    assert run.returncode == 0, run.stderr
    verdict, games = verdict_and_games(run.stdout)
    assert verdict == "NEW is better (H1 accepted)" and games <= 480, run.stdout
    assert "LLR" in run.stdout and "Elo +" in run.stdout


def test_a_bot_against_itself_reaches_the_cap_or_no_difference(tmp_path: Path) -> None:
    words = ["bot", "test", "builtin:random", "--against", "builtin:random", "--game", "edible"]
    run = arena(*words, "--max-games", "24", "--games-per-match", "24", "--workers", "1", home=tmp_path)
    assert run.returncode == 0, run.stderr
    verdict, games = verdict_and_games(run.stdout)
    assert verdict.startswith(("the game cap was reached", "no difference")) and games == 24


def test_bad_arguments_get_one_line_and_no_test(tmp_path: Path) -> None:
    base = ["bot", "test", "builtin:heuristic", "--game", "edible"]
    for extra, message in (
        (["--against", "builtin:random", "--elo0", "5", "--elo1", "0"], "elo0 (5) must be below elo1 (0)"),
        (["--against", "builtin:random", "--alpha", "nan"], "'nan' is not a finite number"),
        (["--against", "nobody"], "no edible bot named 'nobody'"),
    ):
        run = arena(*base, *extra, home=tmp_path)
        assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr, run.stderr
