"""The living ladder's pages over a real server, on results written to its store (its scheduler
takes them into the ladder of record): bots not connected to the ladder shown apart, the revision the
ladder page polls, what 100 Elo means per game, a bot's record against each other bot, its matches
page by page, and the ladder's standing tournaments left out of the lists of tournaments."""

from __future__ import annotations

import re

import pytest
from recorded import add_bot, add_match, add_tournament, head_to_head_games
from served import Web, ladder_listing

from arena.store.models import BotVersion
from arena.web.views.bots import MATCHES_PAGE
from arena.web.views.tournaments import LADDER_MATCHES


def section(page: str, table_id: str) -> str:
    """The HTML of the table with this id."""
    found = re.search(rf'<table[^>]*id="{table_id}".*?</table>', page, re.S)
    assert found, f"no table {table_id}"
    return found.group(0)


def test_bots_not_connected_to_the_ladder_are_shown_apart_without_a_rank(web: Web) -> None:
    client = web.client()
    assert client.get("/api/v1/ladders/chess/revision").status == 404
    # Two bots whose every game was a tie: nothing compares them. One is the ladder, alone.
    with web.store.session() as session:
        solo, other = (add_bot(session, "believe", name)[0] for name in ("solo", "solo-other"))
        add_match(session, add_tournament(session, "believe"), [solo, other], [[0, 0], [0, 0]])
    ladder = ladder_listing(client, "believe", {"solo", "solo-other"})
    assert [(e["bot"], e["rank"], e["connected"]) for e in ladder["entries"]] == [
        ("solo", 1, True),
        ("solo-other", None, False),
    ]
    assert ladder["entries"][0]["provisional"]
    page = client.get("/ladder/believe").text
    assert "provisional: the only bot ranked yet" in section(page, "ladder")
    assert "solo-other" in section(page, "ladder-apart") and "solo-other" not in section(page, "ladder")

    # Three bots with decided games among them: the main pool, ranked; two more that met only each
    # other join the ones apart. The revision moves.
    before = client.get("/api/v1/ladders/believe/revision").json()
    assert before["game"] == "believe" and before["revision"] >= ladder["revision"]
    with web.store.session() as session:
        a, b, c, d, e = (add_bot(session, "believe", f"pool-{name}")[0] for name in "abcde")
        believe = add_tournament(session, "believe")
        add_match(session, believe, [a, b, c], [[0, 1, 2], [0, 2, 1], [1, 0, 2], [0, 1, 2]])
        add_match(session, believe, [d, e], [[0, 1], [1, 0]])
    ladder = ladder_listing(client, "believe", {f"pool-{name}" for name in "abcde"})
    assert client.get("/api/v1/ladders/believe/revision").json()["revision"] > before["revision"]
    entries = ladder["entries"]
    ranked = [entry for entry in entries if entry["connected"]]
    assert [entry["bot"] for entry in ranked] == ["pool-a", "pool-b", "pool-c"]
    assert [entry["rank"] for entry in ranked] == [1, 2, 3]
    assert ranked[0]["superiority"] is not None and ranked[0]["halfwidth"] is not None
    apart = entries[len(ranked) :]  # after the ranked ones
    assert {entry["bot"] for entry in apart} == {"solo", "solo-other", "pool-d", "pool-e"}
    assert all(
        entry["rank"] is None and entry["halfwidth"] is None and entry["superiority"] is None
        for entry in apart
    )
    page = client.get("/ladder/believe").text
    assert "Not yet connected" in page and "provisional: the only bot ranked yet" not in page
    for entry in apart:
        assert entry["bot"] in section(page, "ladder-apart") and entry["bot"] not in section(page, "ladder")
    # the part the page's script fetches when the revision moves: the same tables, no page around them
    table = client.get("/ladder/believe/table")
    assert table.status == 200 and "<html" not in table.text
    assert section(table.text, "ladder") == section(page, "ladder")
    assert client.get("/ladder/believe/table?page=2").status == 404


def test_the_ladder_says_what_100_elo_means_in_its_game(web: Web) -> None:
    client = web.client()
    one_seat = 1 / (1 + 10 ** (-100 / 400))
    two_seats = 1 / (1 + 10 ** (-200 / 400))  # a kozel team: one bot in both seats of its side
    for game, probability, words in (
        ("believe", one_seat, "finishes ahead of the other in 64% of the games"),
        ("edible", one_seat, "finishes ahead of the other in 64% of the games"),
        ("kozel", two_seats, "a team of the higher-rated wins 76% of decisive games"),
    ):
        gap = client.get(f"/api/v1/ladders/{game}").json()["elo_gap"]
        assert gap["elo"] == 100 and gap["probability"] == pytest.approx(probability, abs=1e-4)
        assert words in gap["meaning"]
        assert words in client.get(f"/ladder/{game}").text


def test_a_bots_record_against_each_other_bot(web: Web) -> None:
    with web.store.session() as session:
        bots = head_to_head_games(session)
    client = web.client()
    record = client.get(f"/api/v1/bots/{bots['x']}").json()["head_to_head"]
    assert [(r["bot"], r["games"], r["ahead"], r["behind"], r["tied"]) for r in record] == [
        ("h2h-y", 5, 2, 2, 1),
        ("h2h-z", 3, 2, 1, 0),
    ]
    assert record[0]["bot_id"] == bots["y"]
    kozel = client.get(f"/api/v1/bots/{bots['a']}").json()["head_to_head"]
    assert [(r["bot"], r["games"], r["ahead"], r["behind"], r["tied"]) for r in kozel] == [
        ("h2h-b", 3, 1, 1, 1),
        ("h2h-c", 1, 1, 0, 0),
    ]
    table = section(client.get(f"/bots/{bots['a']}").text, "head-to-head")
    assert f'href="/bots/{bots["b"]}"' in table and f'href="/bots/{bots["c"]}"' in table


def test_a_bots_matches_come_page_by_page(web: Web) -> None:
    with web.store.session() as session:
        (mine,), (theirs,) = add_bot(session, "kozel", "pager"), add_bot(session, "kozel", "pager-foe")
        played = add_tournament(session, "kozel", "team_round_robin")
        ladder = add_tournament(session, "kozel", "ladder")
        ids = [  # the bot holds two seats of every match (a kozel team), listed once
            add_match(session, ladder if n % 2 else played, [mine, theirs, mine, theirs], [[0, 1, 0, 1]])
            for n in range(2 * MATCHES_PAGE + 5)
        ]
        bot_id = session.get_one(BotVersion, mine).bot_id
    client = web.client()
    pages = [client.get(f"/api/v1/bots/{bot_id}?page={n}").json() for n in (1, 2, 3)]
    assert [(p["page"], p["pages"], p["match_count"]) for p in pages] == [(n, 3, len(ids)) for n in (1, 2, 3)]
    assert [len(p["matches"]) for p in pages] == [MATCHES_PAGE, MATCHES_PAGE, 5]
    assert [line["id"] for p in pages for line in p["matches"]] == ids[::-1]  # newest first, each once
    assert all(line["opponents"] == ["pager-foe"] for p in pages for line in p["matches"])
    assert {line["id"]: line["ladder"] for line in pages[2]["matches"]} == {
        match_id: n % 2 == 1 for n, match_id in enumerate(ids[:5])
    }
    assert client.get(f"/api/v1/bots/{bot_id}").json()["matches"] == pages[0]["matches"]

    for bad in ("4", "1000000000000000000000"):
        reply = client.get(f"/api/v1/bots/{bot_id}?page={bad}")
        assert reply.status == 404
        assert (
            reply.json()["error"]
            == f"pager has {len(ids)} matches on 3 page(s) of {MATCHES_PAGE}, not page {bad}"
        )
    for bad in ("0", "-1", "two", "1.5", ""):
        reply = client.get(f"/api/v1/bots/{bot_id}?page={bad}")
        assert reply.status == 422 and "page" in reply.json()["error"], bad
    page = client.get(f"/bots/{bot_id}?page=9")
    assert page.status == 404 and "not page 9" in page.text and "<html" in page.text
    assert client.get(f"/bots/{bot_id}?page=x").status == 422

    middle = client.get(f"/bots/{bot_id}?page=2").text
    assert f"Matches {MATCHES_PAGE + 1}\u2013{2 * MATCHES_PAGE} of {len(ids)}" in middle
    assert 'href="?page=1#matches"' in middle and 'href="?page=3#matches"' in middle
    first, last = client.get(f"/bots/{bot_id}").text, client.get(f"/bots/{bot_id}?page=3").text
    assert "?page=0" not in first and "?page=4" not in last
    assert 'href="/ladder/kozel">ladder</a>' in first and f'href="/tournaments/{played.id}"' in first
    # a bot with no matches has one empty page
    with web.store.session() as session:
        idle = session.get_one(BotVersion, add_bot(session, "kozel", "idle")[0]).bot_id
    assert client.get(f"/api/v1/bots/{idle}").json()["pages"] == 1
    assert client.get(f"/api/v1/bots/{idle}?page=2").status == 404


def test_the_ladders_standing_tournaments_stay_out_of_the_lists(web: Web) -> None:
    with web.store.session() as session:
        (first,), (second,) = add_bot(session, "edible", "lister"), add_bot(session, "edible", "lister-foe")
        ladder = add_tournament(session, "edible", "ladder")
        ladder_match = add_match(session, ladder, [first, second], [[0, 1]])
        newest = [add_match(session, ladder, [second, first], [[0, 1]]) for _ in range(LADDER_MATCHES)]
        played = add_tournament(session, "edible")
        played_match = add_match(session, played, [first, second], [[1, 0]])
        ladder_id, played_id, bot_id = ladder.id, played.id, session.get_one(BotVersion, first).bot_id
    client = web.client()
    listed = {line["id"] for line in client.get("/api/v1/tournaments").json()}
    assert played_id in listed and ladder_id not in listed
    for path in ("/tournaments", "/"):
        page = client.get(path).text
        assert f'href="/tournaments/{played_id}"' in page and f'href="/tournaments/{ladder_id}"' not in page
    # its own page still opens, says what it is, and lists its newest matches only
    standing = client.get(f"/api/v1/tournaments/{ladder_id}").json()
    assert standing["ladder"] is True and standing["total"] == LADDER_MATCHES + 1
    assert [line["id"] for line in standing["matches"]] == newest[::-1]
    assert client.get(f"/api/v1/tournaments/{played_id}").json()["ladder"] is False
    page = client.get(f"/tournaments/{ladder_id}").text
    assert "standing tournament" in page and 'href="/ladder/edible"' in page
    assert f'href="/matches/{ladder_match}"' not in page and f'href="/matches/{newest[0]}"' in page
    # its matches open from the bot's page and say they are the ladder's
    assert client.get(f"/api/v1/matches/{ladder_match}").json()["ladder"] is True
    match_page = client.get(f"/matches/{ladder_match}").text
    assert 'href="/ladder/edible">ladder match</a>' in match_page and "/tournaments/" not in match_page
    assert (
        f'href="/tournaments/{played_id}">tournament {played_id}</a>'
        in client.get(f"/matches/{played_match}").text
    )
    assert f'href="/matches/{played_match}"' in client.get(f"/bots/{bot_id}").text
    assert f'href="/matches/{ladder_match}"' in client.get(f"/bots/{bot_id}?page=4").text  # the oldest
