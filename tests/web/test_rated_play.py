"""Only rated play moves a ladder: a user's tournament with a seed they chose, a custom config and
another owner's bot, played in the real sandbox by a bot that deals every game from that seed, leaves
the ladder of record (its games, Elo, intervals and live Elo) as it was."""

from __future__ import annotations

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from served import ROOT, Client, Web, serving, submit_bot, wait_for_tournament

SEED = 424242
FIELD = ["builtin:honest", "builtin:caller", "builtin:random"]


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """A server playing tournaments only: no living ladder, so that nothing else moves the ladder."""
    with serving(tmp_path_factory.mktemp("arena-home"), ["--no-ladder"]) as web:
        yield web


def deal_reader(seed: int) -> tuple[str, bytes]:
    """The deal-reading bot with the seed its owner chose, zipped for submission."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.write(ROOT / "tests" / "bots" / "deal_reader.py", "deal_reader.py")
        archive.writestr("seed", str(seed))
    return "deal_reader.zip", buffer.getvalue()


def standing(ladder: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
    """What the ladder says of each bot: its rank, Elo, interval, games, live Elo and live games."""
    return {
        entry["bot"]: tuple(
            entry[key]
            for key in ("rank", "elo", "halfwidth", "games", "live_elo", "live_games", "superiority")
        )
        for entry in ladder["entries"]
    }


def fitted(client: Client, games: int, timeout: float = 60) -> dict[str, Any]:
    """The believe ladder once its fit holds ``games`` games (the server refits as a tournament ends)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ladder: dict[str, Any] = client.get("/api/v1/ladders/believe").json()
        if ladder["fit_games"] == games:
            return ladder
        time.sleep(0.2)
    pytest.fail(f"the believe ladder was not fitted on {games} games within {timeout:.0f} s")


def test_a_seeded_user_tournament_leaves_the_ladder_as_it_was(web: Web, tmp_path: Path) -> None:
    admin = web.client(web.admin_token)
    rated = admin.post_json(
        "/api/v1/tournaments", {"game": "believe", "bots": FIELD, "games_per_match": 6, "rated": True}
    )
    assert rated.status == 200, rated.text
    assert wait_for_tournament(admin, rated.json()["id"])["rated"]
    before = fitted(admin, games=6)  # one match of the three, all seated
    assert set(standing(before)) == set(FIELD)

    farmer = web.client(web.user("farmer"))
    submitted = submit_bot(farmer, "believe", "reader", deal_reader(SEED))
    assert submitted["validation"] == "passed", submitted
    request = {
        "game": "believe",
        "bots": ["reader", "builtin:caller"],  # a bot that is not the farmer's
        "games_per_match": 10,
        "rounds": 2,
        "seed": SEED,
        "config": {"action_cap": 900},
    }
    refused = farmer.post_json("/api/v1/tournaments", {**request, "rated": True})
    assert refused.status == 403 and "only an admin" in refused.json()["error"]
    created = farmer.post_json("/api/v1/tournaments", request)
    assert created.status == 200, created.text
    played = wait_for_tournament(farmer, created.json()["id"])
    assert played["counts"] == {"done": 2} and not played["rated"]

    # the attack ran: the reader knew every hand of all 20 games before the first card
    logs = [
        farmer.get(f"/api/v1/matches/{match['id']}/logs/{match['opponents'].index('reader')}").text
        for match in played["matches"]
    ]
    assert [log.count("every hand known") for log in logs] == [10, 10]
    assert all("predicted 10 of 10" in log for log in logs)
    # and the ladder did not move: the same games, Elo, intervals and live Elo; no reader on it
    after = admin.get("/api/v1/ladders/believe").json()
    assert after["fit_games"] == before["fit_games"]
    assert standing(after) == standing(before)
    page = admin.get("/ladder/believe").text
    assert "reader" not in page and "What is rated." in page
