"""The store on SQLite and PostgreSQL: accounts, bots, atomic claims, exactly-once results."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta

import pytest
from sqlalchemy import event, func, select

from arena.bots import load_bot
from arena.games.edible import Edible, EdibleConfig
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner
from arena.runner.records import MatchRecord
from arena.store import blobs
from arena.store.db import Store, once_more_on_conflict
from arena.store.errors import AuthError, StoreError
from arena.store.models import Blob, Bot, BotVersion, GameOutcome, Match, MatchStatus, SeatResult
from arena.store.queries.tournaments import standings
from arena.store.repo import (
    MatchBlobs,
    api_token,
    authenticate,
    bot_version,
    claim,
    create_tournament,
    create_user,
    expire_leases,
    give_back,
    latest_version,
    record_result,
    release,
    renew,
    retry_failed,
)

HOUR = timedelta(hours=1)


def played(entrants: int = 2, games: int = 4) -> MatchRecord:
    agents = [InProcessAgent(load_bot("edible", "builtin:random")) for _ in range(entrants)]
    return asyncio.run(MatchRunner(Edible(), EdibleConfig(), agents, games=games, seed=3).run())


def files_of(record: MatchRecord) -> MatchBlobs:
    """A played match's replay and logs, as ``run_match`` packs them."""
    return MatchBlobs(
        blobs.pack(json.dumps(replay.to_json(record)).encode()),
        [blobs.pack(log.encode()) for log in record.logs],
    )


def tournament_with_one_match(store: Store, *, rated: bool = False) -> int:
    """A tournament of one edible match of two built-ins: rated (as an admin makes one), or with a
    chosen seed (unrated)."""
    with store.session() as session:
        first = latest_version(session, "edible", "builtin:random")
        second = latest_version(session, "edible", "builtin:heuristic")
        tournament = create_tournament(
            session,
            game="edible",
            game_version=1,
            config={},
            kind="round_robin",
            entrants=[first, second],
            plans=[[0, 1]],
            seeds=[3],
            games_per_match=4,
            duplicate=False,
            seed=0,
            seed_chosen=not rated,
            rated=rated,
            creator=None,
        )
        return tournament.matches[0].id


def test_tokens_are_stored_hashed_and_checked(store: Store) -> None:
    with store.session() as session:
        user, token = create_user(session, "ada")
        assert user.token_hash != token and len(user.token_hash) == 64
    with store.session() as session:
        assert authenticate(session, token).name == "ada"
        with pytest.raises(AuthError, match="not valid"):
            authenticate(session, token + "x")
        with pytest.raises(AuthError, match="required"):
            authenticate(session, None)
        with pytest.raises(StoreError, match="already exists"):
            create_user(session, "ada")


def test_bot_names_belong_to_their_owner_and_versions_are_immutable(store: Store) -> None:
    with store.session() as session:
        ada, _ = create_user(session, "ada")
        bob, _ = create_user(session, "bob")
        first = bot_version(session, "edible", "sly", "artifact:" + "a" * 64, ada, "bot.py")
        again = bot_version(session, "edible", "sly", "artifact:" + "a" * 64, ada, "bot.py")
        assert first.id == again.id
        second = bot_version(session, "edible", "sly", "artifact:" + "b" * 64, ada, "bot.py")
        assert second.id != first.id
        with pytest.raises(StoreError, match="taken by another user"):
            bot_version(session, "edible", "sly", "artifact:" + "c" * 64, bob, "bot.py")
        with pytest.raises(StoreError, match="no version that passed validation"):
            latest_version(session, "edible", "sly")
        second.validated = True
    with store.session() as session:
        assert latest_version(session, "edible", "sly").id == second.id
        with pytest.raises(StoreError, match="no such built-in"):
            latest_version(session, "edible", "builtin:nope")


def test_a_registration_that_loses_a_race_runs_once_more_and_finds_the_winners_row(store: Store) -> None:
    """Two requests registering the same bot at once: the one that inserts second hits the UNIQUE
    constraint, and its second run finds the row the first one inserted."""
    with store.session() as session:
        owner, _ = create_user(session, "twin-owner")
    runs: list[int] = []

    def register() -> int:
        with store.session() as session:
            if not runs:  # the first run: another transaction registers the bot between look and insert

                @event.listens_for(session, "before_flush", once=True)
                def meanwhile(*_: object) -> None:
                    with store.session() as other:
                        bot_version(other, "edible", "twin", "artifact:twin", owner)

            runs.append(len(runs))
            return bot_version(session, "edible", "twin", "artifact:twin", owner).id

    version_id = once_more_on_conflict(register)
    assert runs == [0, 1]
    with store.session() as session:
        assert session.scalar(select(func.count()).select_from(Bot).where(Bot.name == "twin")) == 1
        assert [
            version.id for version in session.scalars(select(BotVersion).join(Bot).where(Bot.name == "twin"))
        ] == [version_id]


def test_a_match_is_claimed_once_and_recorded_exactly_once(store: Store) -> None:
    match_id = tournament_with_one_match(store)
    with store.session() as session:
        assert claim(session, match_id, "w1", max_attempts=3, lease=HOUR) is not None
    with store.session() as session:
        assert claim(session, match_id, "w2", max_attempts=3, lease=HOUR) is None  # already running
    record = played()
    files = files_of(record)
    with store.session() as session:
        assert record_result(session, match_id, "w1", record, files)
    with store.session() as session:
        # A worker whose lease expired played it too: its result comes second, and is refused.
        late = played()
        late.logs = ["the late run's log"] * 2
        assert not record_result(session, match_id, "w0", late, files_of(late))
        assert not record_result(session, match_id, "w1", record, files_of(record))  # done already
        assert set(session.scalars(select(Blob.digest))) == {
            files.replay.digest,
            *(log.digest for log in files.logs),
        }
        assert claim(session, match_id, "w3", max_attempts=3, lease=HOUR) is None
        assert session.scalar(select(func.count()).select_from(GameOutcome)) == 4
        assert session.scalar(select(func.count()).select_from(SeatResult)) == 2
        match = session.get(Match, match_id)
        assert match is not None and match.status == MatchStatus.DONE and match.attempts == 1
        assert json.loads(blobs.get(session, match.replay_blob)) == json.loads(
            json.dumps(replay.to_json(record))
        )
        assert [blobs.get(session, log).decode() for log in match.log_blobs] == record.logs
        rows = standings(session, match.tournament_id)
        assert sum(row["games"] for row in rows) == 8 and {row["bot"] for row in rows} == {
            "builtin:random",
            "builtin:heuristic",
        }


def test_infrastructure_faults_are_retried_then_marked_never_counted(store: Store) -> None:
    match_id = tournament_with_one_match(store)
    for attempt in range(1, 4):
        with store.session() as session:
            assert claim(session, match_id, "w", max_attempts=3, lease=HOUR) is not None
        with store.session() as session:
            status = release(session, match_id, "w", "sandbox failed", max_attempts=3)
        assert status == (MatchStatus.PENDING if attempt < 3 else MatchStatus.FAILED_INFRASTRUCTURE)
    with store.session() as session:
        assert claim(session, match_id, "w", max_attempts=3, lease=HOUR) is None
        assert session.scalar(select(func.count()).select_from(SeatResult)) == 0


def test_a_lease_nobody_renews_expires_until_the_match_fails_with_its_reason(store: Store) -> None:
    match_id = tournament_with_one_match(store)
    with store.session() as session:
        assert claim(session, match_id, "alive", max_attempts=3, lease=timedelta(seconds=-1)) is not None
        assert renew(session, match_id, "alive", HOUR)  # renewed in time: it stays
        assert not renew(session, match_id, "someone-else", HOUR)
    with store.session() as session:
        assert expire_leases(session, max_attempts=3) == []
    for attempt in range(2, 5):
        with store.session() as session:
            running = session.get(Match, match_id)
            assert running is not None
            running.lease_until = running.started_at  # its worker stopped renewing
        with store.session() as session:
            assert expire_leases(session, max_attempts=3) == [match_id]
            match = session.get(Match, match_id)
            assert match is not None and match.worker == "" and match.lease_until is None
            if attempt <= 3:
                assert match.status == MatchStatus.PENDING
                assert "stopped renewing its lease" in match.error
                assert claim(session, match_id, "dead", max_attempts=3, lease=HOUR) is not None
    with store.session() as session:
        match = session.get(Match, match_id)
        assert match is not None and match.status == MatchStatus.FAILED_INFRASTRUCTURE
        assert match.error == "its worker stopped renewing its lease on each of 3 attempts"
        assert claim(session, match_id, "w", max_attempts=3, lease=HOUR) is None
    with store.session() as session:
        assert retry_failed(session, match.tournament_id) == [match_id]
    with store.session() as session:
        match = session.get(Match, match_id)
        assert match is not None and match.status == MatchStatus.PENDING and match.attempts == 0
        assert claim(session, match_id, "w", max_attempts=3, lease=HOUR) is not None


def test_a_match_given_back_on_purpose_keeps_its_attempts(store: Store) -> None:
    match_id = tournament_with_one_match(store)
    with store.session() as session:
        assert claim(session, match_id, "run/local", max_attempts=3, lease=HOUR) is not None
    with store.session() as session:
        assert give_back(session, "someone-else") == []
        assert give_back(session, "run/local") == [match_id]
    with store.session() as session:
        match = session.get(Match, match_id)
        assert match is not None and match.status == MatchStatus.PENDING and match.attempts == 0


def test_api_tokens_never_start_with_a_dash() -> None:
    # One raw url-safe token in 64 starts with "-", which `arena bot submit --token TOKEN` reads
    # as an option: 2,000 draws would show such a token with near certainty.
    tokens = [api_token() for _ in range(2000)]
    assert not [token for token in tokens if token.startswith("-")]
    assert len(set(tokens)) == len(tokens)
