"""The living ladder's pages over a real server, on results written to its store: bots not connected
to the ladder shown apart, the revision the ladder page polls, what 100 Elo means per game."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from conftest import Client, Web, add_bot, add_match, add_tournament, refitted


def ladder_at(client: Client, game: str, wanted: int) -> dict[str, Any]:
    """The ladder's JSON once the server has seen revision ``wanted`` or a later one (it reads
    revisions at most every half second, and a scheduler following the matches may move it too)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        seen = client.get(f"/api/v1/ladders/{game}/revision").json()
        assert set(seen) == {"game", "revision"} and seen["game"] == game
        if seen["revision"] >= wanted:
            ladder: dict[str, Any] = client.get(f"/api/v1/ladders/{game}").json()
            assert ladder["revision"] >= wanted
            return ladder
        time.sleep(0.1)
    pytest.fail(f"the server did not see revision {wanted} of the {game} ladder")


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
    ladder = ladder_at(client, "believe", refitted(web.store, "believe"))
    assert [(e["bot"], e["rank"], e["connected"]) for e in ladder["entries"]] == [
        ("solo", 1, True),
        ("solo-other", None, False),
    ]
    assert ladder["entries"][0]["provisional"]
    page = client.get("/ladder/believe").text
    assert "provisional: the only bot ranked yet" in section(page, "ladder")
    assert "solo-other" in section(page, "ladder-apart") and "solo-other" not in section(page, "ladder")

    # Three bots with decided games among them: the main pool, ranked; two more that met only each
    # other join the ones apart.
    with web.store.session() as session:
        a, b, c, d, e = (add_bot(session, "believe", f"pool-{name}")[0] for name in "abcde")
        believe = add_tournament(session, "believe")
        add_match(session, believe, [a, b, c], [[0, 1, 2], [0, 2, 1], [1, 0, 2], [0, 1, 2]])
        add_match(session, believe, [d, e], [[0, 1], [1, 0]])
    ladder = ladder_at(client, "believe", refitted(web.store, "believe"))
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
