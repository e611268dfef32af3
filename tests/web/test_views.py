"""What the pages and the API read, straight from the store on both databases: the head-to-head
record (SQL over the stored outcomes, which each database reads its own way) and a bot's matches."""

from __future__ import annotations

from recorded import head_to_head_games

from arena.store.db import Store
from arena.store.models import Bot, BotVersion, LadderState, User
from arena.store.repo import create_user
from arena.web.views.bots import QueuePlace, bot_page, head_to_head


def test_head_to_head_counts_each_game_once_per_pair_of_bots(store: Store) -> None:
    with store.session() as session:
        bots = head_to_head_games(session)
    with store.session() as session:
        record = {
            row.bot: (row.games, row.ahead, row.behind, row.tied) for row in head_to_head(session, bots["x"])
        }
        assert record == {"h2h-y": (5, 2, 2, 1), "h2h-z": (3, 2, 1, 0)}  # w: a voided match only
        assert [row.bot for row in head_to_head(session, bots["x"])] == ["h2h-y", "h2h-z"]
        mirrored = {
            row.bot: (row.games, row.ahead, row.behind, row.tied) for row in head_to_head(session, bots["y"])
        }
        assert mirrored == {"h2h-x": (5, 2, 2, 1), "h2h-z": (3, 1, 1, 1)}
        kozel = {
            row.bot: (row.games, row.ahead, row.behind, row.tied) for row in head_to_head(session, bots["a"])
        }
        assert kozel == {"h2h-b": (3, 1, 1, 1), "h2h-c": (1, 1, 0, 0)}
        assert head_to_head(session, bots["w"]) == []


def test_a_bots_matches_list_a_kozel_match_once(store: Store) -> None:
    with store.session() as session:
        bots = head_to_head_games(session)
    with store.session() as session:
        page = bot_page(session, bots["a"], None)
        assert page.match_count == 2 and page.pages == 1
        assert [line.opponents for line in page.matches] == [["h2h-c"], ["h2h-b"]]  # newest first
        assert [line.agent for line in page.matches] == [0, 0]
        assert bot_page(session, bots["y"], None).match_count == 2  # one per version


def test_an_owner_sees_where_its_bot_stands_in_the_ladders_queue(store: Store) -> None:
    with store.session() as session:
        owner, _ = create_user(session, "queued-owner")
        stranger, _ = create_user(session, "stranger")
        bots = [Bot(game="edible", name=name, owner_id=owner.id) for name in ("q-first", "q-second")]
        session.add_all(bots)
        session.flush()
        versions = [BotVersion(bot_id=bot.id, spec=f"artifact:{bot.name}", validated=True) for bot in bots]
        session.add_all(versions)
        session.flush()
        # as the scheduler publishes it: the second bot is picked next, the first after one more
        session.add(LadderState(game="edible", queue=[versions[1].id, 999_999, versions[0].id]))
    with store.session() as session:
        viewer = session.get_one(User, owner.id)
        assert bot_page(session, bots[0].id, viewer).queue == QueuePlace(position=3, of=3)
        assert bot_page(session, bots[1].id, viewer).queue == QueuePlace(position=1, of=3)
        assert bot_page(session, bots[0].id, None).queue is None  # only its owner sees it
        assert bot_page(session, bots[0].id, session.get_one(User, stranger.id)).queue is None
        session.get_one(LadderState, "edible").queue = []
    with store.session() as session:
        assert bot_page(session, bots[0].id, session.get_one(User, owner.id)).queue is None
