"""The consistency flag over a real server: a bot that beats one victim every game and is even with
everyone else is shown "inconsistent results against <victim>" on the ladder page, its bot page, the
ladder's JSON and ``arena ladder``; the even bots are not flagged."""

from __future__ import annotations

import itertools
import time
from typing import Any

import pytest
from recorded import add_bot, add_match, add_tournament
from served import Web

from arena.cli.tournament import print_ladder

EVEN = [[0, 1], [1, 0]] * 10
"""Twenty games of two bots, each winning half."""


def flagged_ladder(web: Web, game: str, bot: str, timeout: float = 120) -> dict[str, Any]:
    """The game's ladder (its JSON) once ``bot``'s entry carries a flag: the server's scheduler refits
    after the matches land."""
    client = web.client()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ladder: dict[str, Any] = client.get(f"/api/v1/ladders/{game}").json()
        if any(entry["bot"] == bot and entry["flag"] for entry in ladder["entries"]):
            return ladder
        time.sleep(0.2)
    pytest.fail(f"{bot} was not flagged on the {game} ladder within {timeout:.0f} s")


def test_an_exploiter_is_flagged_on_the_ladder_and_its_bot_page(
    web: Web, capsys: pytest.CaptureFixture[str]
) -> None:
    with web.store.session() as session:
        names = ["ex-exploiter", "ex-victim", "ex-even-a", "ex-even-b", "ex-even-c", "ex-even-d"]
        ids = [add_bot(session, "believe", name)[0] for name in names]
        believe = add_tournament(session, "believe")
        exploiter, victim = ids[0], ids[1]
        add_match(session, believe, [exploiter, victim], [[0, 1]] * 20)
        for a, b in itertools.combinations(ids, 2):
            if {a, b} != {exploiter, victim}:
                add_match(session, believe, [a, b], EVEN)
        add_match(session, believe, [exploiter, victim], [[0, 1]] * 20)
    ladder = flagged_ladder(web, "believe", "ex-exploiter")
    flags = {entry["bot"]: entry["flag"] for entry in ladder["entries"] if entry["bot"] in names}
    assert flags["ex-exploiter"].startswith(f"inconsistent results against ex-victim v{victim}: won 40 of 40")
    assert flags["ex-victim"].startswith(
        f"inconsistent results against ex-exploiter v{exploiter}: won 0 of 40"
    )
    assert [flags[name] for name in names[2:]] == [""] * 4

    client = web.client()
    page = client.get("/ladder/believe").text
    assert f"inconsistent results against ex-victim v{victim}: won 40 of 40" in page
    assert "A bot is flagged <em>inconsistent results</em>" in page
    bot_id = next(entry["bot_id"] for entry in ladder["entries"] if entry["bot"] == "ex-exploiter")
    bot_page = client.get(f"/bots/{bot_id}").text
    assert 'id="consistency-flag"' in bot_page and "inconsistent results against ex-victim" in bot_page
    even_id = next(entry["bot_id"] for entry in ladder["entries"] if entry["bot"] == "ex-even-a")
    assert 'id="consistency-flag"' not in client.get(f"/bots/{even_id}").text

    print_ladder(web.store, "believe")
    printed = capsys.readouterr().out
    assert "inconsistent results: these bots' results depart from their rating" in printed
    assert f"ex-exploiter             inconsistent results against ex-victim v{victim}" in printed
