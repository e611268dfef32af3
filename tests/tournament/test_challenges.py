"""Challenges in the store: who may use which bot, the bounds on games and on challenges at once, and
that a challenge is never rated; the bots' switch as migration 0011 sets it."""

from __future__ import annotations

import threading

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.orm import Session

from arena.ratings import rated
from arena.store.db import Store
from arena.store.errors import NotAllowed, StoreError
from arena.store.migrate import alembic_config
from arena.store.models import Bot, Match, User, now
from arena.store.repo import bot_version, create_user, latest_version
from arena.tournament import challenges, quota
from arena.tournament.service import TournamentSpec, create


def user_bot(session: Session, user: User, game: str, name: str) -> int:
    version = bot_version(session, game, name, f"artifact:{name}", user)
    version.validated = True
    return version.bot_id


def test_who_may_challenge_with_or_against_which_bot(store: Store) -> None:
    with store.session() as session:
        ann, ben = create_user(session, "ann")[0], create_user(session, "ben")[0]
        anns, bens = user_bot(session, ann, "edible", "anns"), user_bot(session, ben, "edible", "bens")
        random = latest_version(session, "edible", "builtin:random").bot_id
        assert session.get_one(Bot, random).open_to_others and not session.get_one(Bot, anns).open_to_others
        # ben may not use ann's closed bot, on either side; ann may, and a built-in is open to all
        for bot, opponent in ((bens, "anns"), (random, anns), (anns, "builtin:random")):
            with pytest.raises(NotAllowed, match="anns is not open to others"):
                challenges.create_challenge(session, ben, bot, opponent, 4)
        with pytest.raises(NotAllowed, match="only anns's owner"):
            challenges.set_open(session, ben, anns, True)
        with pytest.raises(NotAllowed, match="built-in"):
            challenges.set_open(session, ann, random, False)
        mine = challenges.create_challenge(session, ann, anns, "builtin:random", 4)
        challenges.set_open(session, ann, anns, True)
        theirs = challenges.create_challenge(session, ben, random, anns, 2)
        pair = {latest_version(session, "edible", name).id for name in ("anns", "builtin:random")}
        assert [set(m.entrants) for m in mine.matches + theirs.matches] == [pair, pair]
        assert challenges.may_use(None, session.get_one(Bot, anns))
        # unknown bots, another game's, itself, and games out of bounds
        kozel = user_bot(session, ben, "kozel", "benk")
        for bot, opponent, games, error, message in (
            (bens, 999_999, 4, challenges.UnknownBot, "no bot 999999"),
            (bens, "nobody", 4, challenges.UnknownBot, "no edible bot named 'nobody'"),
            (bens, kozel, 4, StoreError, "benk plays kozel, not edible"),
            (bens, bens, 4, StoreError, "cannot challenge itself"),
            (bens, anns, 3, StoreError, "a multiple of 2 games from 2 to 100, not 3"),
            (kozel, "builtin:random", 6, StoreError, "a multiple of 4 games from 4 to 100, not 6"),
            (bens, anns, 102, StoreError, "not 102"),
        ):
            with pytest.raises(error, match=message):
                challenges.create_challenge(session, ben, bot, opponent, games)


def test_challenges_at_once_are_bounded_apart_from_tournaments_and_never_rated(store: Store) -> None:
    with store.session() as session:
        cleo, admin = create_user(session, "cleo")[0], create_user(session, "dora", admin=True)[0]
        bot = user_bot(session, cleo, "edible", "cleos")
        made = [challenges.create_challenge(session, cleo, bot, "builtin:random", 2) for _ in range(2)]
        assert quota.MAX_CHALLENGES == 2
        with pytest.raises(quota.QuotaError, match="you have 2 challenges unfinished"):
            challenges.create_challenge(session, cleo, bot, "builtin:heuristic", 2)
        # tournaments have their own bound, and an admin has none
        quota.check_room(session, cleo)
        random = latest_version(session, "edible", "builtin:random").bot_id
        for _ in range(3):
            challenges.create_challenge(session, admin, random, "builtin:heuristic", 2)
        # one over, another may start
        made[0].matches[0].status = "done"
        session.flush()
        made.append(challenges.create_challenge(session, cleo, bot, "builtin:heuristic", 2))
        for tournament in made:
            assert tournament.kind == quota.CHALLENGE and tournament.duplicate and not tournament.seed_chosen
            assert not rated.refusals("edible", tournament.config, tournament.game_version, seed_chosen=False)
            assert not tournament.rated and not rated.is_rated(tournament)
        # the same terms from an admin's rated tournament are rated: only the kind of play differs
        spec = TournamentSpec("edible", ["cleos", "builtin:random"], games_per_match=2, rated=True)
        ladder = create(session, spec, admin).tournament
        session.flush()
        assert rated.rated_tournaments(session.connection(), "edible") == [ladder.id]


def test_migration_0011_opens_the_built_ins_only(store: Store) -> None:
    config = alembic_config(store.url)
    store.dispose()
    command.downgrade(config, "0010")
    with store.engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO users (id, name, token_hash, password_hash, is_admin, created_at)"
                " VALUES (1, 'dee', 'x', '', false, :now)"
            ),
            {"now": now()},
        )
        for bot_id, owner in ((1, None), (2, 1)):
            connection.execute(
                text(
                    "INSERT INTO bots (id, owner_id, game, name, created_at)"
                    " VALUES (:id, :owner, 'edible', :name, :now)"
                ),
                {"id": bot_id, "owner": owner, "name": f"b{bot_id}", "now": now()},
            )
    store.dispose()
    command.upgrade(config, "head")
    store.dispose()
    with store.session() as session:
        assert [bot.open_to_others for bot in session.query(Bot).order_by(Bot.id)] == [True, False]
        assert session.query(Match).count() == 0


@pytest.mark.parametrize("store", ["postgresql"], indirect=True)  # SQLite writes one at a time
def test_two_challenges_at_once_cannot_both_pass_the_quota(store: Store) -> None:
    """The second creation waits for the first's transaction (a lock on the user's row), then counts
    its challenge: on PostgreSQL, where transactions run side by side."""
    with store.session() as session:
        ivy = create_user(session, "ivy")[0]
        bot, ivy_id = user_bot(session, ivy, "edible", "ivys"), ivy.id
        challenges.create_challenge(session, ivy, bot, "builtin:random", 2)
    outcome: list[BaseException | int] = []

    def second() -> None:
        try:
            with store.session() as other:
                user = other.get_one(User, ivy_id)
                outcome.append(challenges.create_challenge(other, user, bot, "builtin:random", 2).id)
        except BaseException as error:  # the thread's outcome, checked below
            outcome.append(error)

    with store.session() as session:
        challenges.create_challenge(session, session.get_one(User, ivy_id), bot, "builtin:random", 2)
        thread = threading.Thread(target=second)
        thread.start()
        waiting = (
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE wait_event_type = 'Lock' AND datname = current_database()"
        )

        def blocked() -> bool:  # read anew each time: a transaction keeps its first view of the table
            with store.engine.connect() as connection:
                return bool(connection.execute(text(waiting)).scalar())

        while not blocked() and thread.is_alive():
            thread.join(0.05)
    thread.join()
    assert len(outcome) == 1 and isinstance(outcome[0], quota.QuotaError), outcome
