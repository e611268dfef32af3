"""Watching a running match: its finished games in the public view only, every card once it is over."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect
from served import Web, submit_bot, wait_for_tournament
from sqlalchemy import func, select

from arena.games.registry import get_game
from arena.store.models import LiveLine

SLOW_BOT = Path(__file__).resolve().parents[1] / "bots" / "slow_after_first.py"


def running_with_games(web: Web, client: Any, tournament_id: int, timeout: float = 120) -> dict[str, Any]:
    """The tournament's match once it runs and has a finished game."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in client.get(f"/api/v1/tournaments/{tournament_id}").json()["matches"]:
            match: dict[str, Any] = client.get(f"/api/v1/matches/{line['id']}").json()
            if match["status"] == "running" and match["games"]:
                return match
        time.sleep(0.05)
    pytest.fail(f"no match of tournament {tournament_id} was seen running with a finished game")


def test_a_running_match_shows_finished_games_in_the_public_view_only(
    web: Web, browser: Browser, shots: Path
) -> None:
    token = web.user("watcher")
    owner, spectator = web.client(token), web.client()
    submitted = submit_bot(owner, "edible", "slow", ("slow.py", SLOW_BOT.read_bytes()))
    assert submitted["validation"] == "passed", submitted["validation_log"]
    created = owner.post_json(
        "/api/v1/tournaments", {"game": "edible", "bots": ["slow", "builtin:random"], "games_per_match": 4}
    ).json()
    match = running_with_games(web, spectator, created["id"])
    match_id = match["id"]
    assert match["replay_available"] and not match["reveal"]
    assert match["games"][0]["index"] == 0 and sorted(match["games"][0]["seats"]) == [
        "builtin:random",
        "slow",
    ]

    live = spectator.get(f"/api/v1/matches/{match_id}/replay/0").json()
    assert not live["reveal"] and live["steps"][0]["number"] == -1
    private = get_game("edible").private_fields
    for step in live["steps"]:
        assert step["action"] is None and step["seat"] is None and step["ms"] is None
        assert "hands" not in step["state"] and not private & set(step["state"]), step["state"]
    assert all(a["state"] != b["state"] for a, b in zip(live["steps"], live["steps"][1:], strict=False))
    assert set(live["result"]) == {"ranks", "scores"}
    reply = spectator.get(f"/api/v1/matches/{match_id}/replay/0?seat=0")
    assert reply.status == 403 and "once the match is over" in reply.json()["error"]
    reply = spectator.get(f"/api/v1/matches/{match_id}/replay/3")
    assert reply.status == 404 and "has games 0..", reply.json()["error"]
    html = spectator.get(f"/matches/{match_id}").text
    assert 'id="replay-live"' in html and 'http-equiv="refresh"' not in html

    # In the browser: the public view while it runs; the page reloads with every card once it is over.
    page = browser.new_page()
    page.goto(f"{web.base}/matches/{match_id}")
    expect(page.locator("#replay-state-title")).to_contain_text("Public view")
    expect(page.locator("#replay-step")).to_contain_text("The deal")
    page.click("#replay-next")
    expect(page.locator("#replay-step")).to_contain_text("Public change 1")
    expect(page.locator("#replay-state")).to_contain_text("seats")
    for hidden in ("hands", "hand_sausages", "my_mat"):
        expect(page.locator("#replay-state")).not_to_contain_text(hidden)
    expect(page.locator("#replay-view option")).to_have_count(1)
    page.screenshot(path=shots / "live.png", full_page=True)
    expect(page.locator("#replay-state-title")).to_contain_text("every card", timeout=120_000)
    expect(page.locator("#replay-game option")).to_have_count(4)
    expect(page.locator("#replay-state")).to_contain_text("hands")
    page.close()

    wait_for_tournament(owner, created["id"])
    done = spectator.get(f"/api/v1/matches/{match_id}").json()
    assert done["status"] == "done" and done["reveal"] and len(done["games"]) == 4
    with web.store.session() as session:
        lines = session.scalar(select(func.count()).where(LiveLine.match_id == match_id))
    assert lines == 0, "the live replay outlived its match"
    # Every public step is what each seat saw of the same moment, without its private fields.
    seen = spectator.get(f"/api/v1/matches/{match_id}/replay/0?seat=1").json()
    assert seen["reveal"] and "hands" in seen["steps"][0]["state"]
    public_of_seen = [
        {name: value for name, value in step["observation"].items() if name not in private}
        for step in seen["steps"]
    ]
    distinct = [
        view for index, view in enumerate(public_of_seen) if index == 0 or view != public_of_seen[index - 1]
    ]
    assert [step["state"] for step in live["steps"]] == distinct
