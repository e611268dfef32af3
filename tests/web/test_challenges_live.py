"""Challenges on a real ``arena serve`` (no ladder): one started from a bot page in Chromium runs in
the sandbox, is watched live and lands on both bot pages, unrated; the API refuses a challenge over
the quota, with or against a bot that is not open, and bad input, each with a clear 4xx. The bot
page's screenshot goes to ``$ARENA_SCREENSHOTS`` (``challenges.png``), as test_browser's do."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, expect
from served import Client, Web, serving
from sqlalchemy import select

from arena.ratings import rated
from arena.store.models import BotVersion, Match, Rating, Tournament, User
from arena.store.repo import latest_version
from arena.tournament.quota import MAX_CHALLENGES
from arena.tournament.service import register

SLOW_BOT = Path(__file__).resolve().parents[1] / "bots" / "slow_after_first.py"
JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """A server without the living ladder: only the challenges play."""
    with serving(tmp_path_factory.mktemp("arena-home"), ["--no-ladder"]) as web:
        yield web


@pytest.fixture(scope="module")
def owner(web: Web, tmp_path_factory: pytest.TempPathFactory) -> tuple[Client, int]:
    """Eve (password ``correct horse battery``) and her slow bot, stored as a submission is and
    marked valid without its validation match (a minute here, in which it thinks 0.25 s a decision;
    test_live validates the same bot)."""
    token = web.user("eve")
    source = tmp_path_factory.mktemp("slow") / "slow.py"
    source.write_bytes(SLOW_BOT.read_bytes())
    with web.store.session() as session:
        eve = session.scalars(select(User).where(User.name == "eve")).one()
        registered = register(web.store, web.home, eve, "edible", "slow", source, None)
    with web.store.session() as session:
        version = session.get_one(BotVersion, registered.version_id)
        version.validated, version.validating = True, False
    return web.client(token), registered.bot_id


def builtin_id(web: Web, game: str, name: str) -> int:
    with web.store.session() as session:
        return latest_version(session, game, f"builtin:{name}").bot_id


def challenges_of(client: Client, bot_id: int) -> list[dict[str, Any]]:
    reply: list[dict[str, Any]] = client.get(f"/api/v1/bots/{bot_id}").json()["challenges"]
    return reply


def test_a_challenge_from_a_bot_page_runs_is_watched_live_and_lands_on_both_pages_unrated(
    web: Web, browser: Browser, owner: tuple[Client, int], shots: Path
) -> None:
    _, slow = owner
    page = browser.new_page()
    page.goto(f"{web.base}/login")
    page.fill("input[name=name]", "eve")
    page.fill("input[name=password]", "correct horse battery")
    page.click("#login-form button[type=submit]")
    expect(page.locator("nav .who")).to_have_text("eve")
    page.goto(f"{web.base}/bots/{slow}")
    expect(page.locator("#challenges-title + p")).to_contain_text("Only its owner may challenge")
    page.select_option("#challenge-form select[name=opponent]", "builtin:random")
    page.fill("#challenge-form input[name=games]", "4")
    page.click("#challenge-form button[type=submit]")
    # the match page, live: the public view while it runs, every card once it is over
    expect(page.locator("#replay-state-title")).to_contain_text("Public view", timeout=120_000)
    expect(page.locator("#replay-live")).to_be_visible()
    match_id = int(page.url.split("#")[0].rstrip("/").rsplit("/", 1)[1])
    expect(page.locator("#replay-state-title")).to_contain_text("every card", timeout=180_000)
    expect(page.locator("#match-status")).to_have_text("done")
    random = builtin_id(web, "edible", "random")
    for bot, other in ((slow, "builtin:random"), (random, "slow")):
        page.goto(f"{web.base}/bots/{bot}")
        row = page.locator("#challenges tbody tr").first
        expect(row).to_contain_text(other)
        expect(row).to_contain_text("eve")
        expect(row).to_contain_text("done")
        expect(row.locator(f"a[href='/matches/{match_id}']").first).to_be_visible()
    page.goto(f"{web.base}/bots/{slow}#challenges-title")
    page.screenshot(path=shots / "challenges.png")
    page.set_viewport_size({"width": 360, "height": 740})  # the form and the list fit a phone
    page.reload()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert page.locator("#challenge-form select").bounding_box()["width"] <= 360  # type: ignore[index]
    page.close()
    (line,) = challenges_of(web.client(), slow)
    (theirs,) = challenges_of(web.client(), random)
    assert line["match_id"] == theirs["match_id"] == match_id and line["games"] == theirs["games"] == 4
    assert (line["score"], line["opponent_score"]) == (theirs["opponent_score"], theirs["score"])
    with web.store.session() as session:
        match = session.get_one(Match, match_id)
        assert match.status == "done" and not rated.is_rated(match.tournament)
        assert rated.rated_matches(session.connection(), "edible").size == 0
        ratings = session.scalars(select(Rating).where(Rating.bot_version_id.in_(match.entrants))).all()
        assert len(ratings) == 2 and all(r.live_games == 0 and r.live_elo == 1500.0 for r in ratings)


def test_the_api_bounds_challenges_and_refuses_bots_that_are_not_open(
    web: Web, owner: tuple[Client, int]
) -> None:
    eve, slow = owner
    fay = web.client(web.user("fay"))
    random, kozel = builtin_id(web, "edible", "random"), builtin_id(web, "kozel", "random")
    path = f"/api/v1/bots/{slow}/challenges"
    for client, where, body, status, message in (
        (fay, path, {"opponent": "builtin:random"}, 403, "slow is not open to others"),
        (fay, f"/api/v1/bots/{random}/challenges", {"opponent": "slow"}, 403, "slow is not open"),
        (fay, f"/api/v1/bots/{random}/challenges", {"opponent": slow}, 403, "slow is not open"),
        (eve, "/api/v1/bots/999999/challenges", {"opponent": "builtin:random"}, 404, "no bot 999999"),
        (eve, path, {"opponent": "nobody"}, 404, "no edible bot named 'nobody'"),
        (eve, path, {"opponent": kozel}, 400, "builtin:random plays kozel, not edible"),
        (eve, path, {"opponent": "builtin:random", "games": 3}, 400, "a multiple of 2 games"),
        (eve, path, {"opponent": "builtin:random", "games": 0}, 422, "games"),
        (eve, path, {"opponent": "builtin:random", "games": 101}, 422, "games"),
        (eve, path, {"opponent": "builtin:random", "games": "4"}, 422, "games"),
        (eve, path, {"opponent": 2**40}, 422, "opponent"),
        (web.client(), path, {"opponent": "builtin:random"}, 401, "Bearer"),
        (fay, f"/api/v1/bots/{slow}/open", None, 405, ""),
    ):
        reply = client.post_json(where, body)
        assert reply.status == status and message in reply.json()["error"], (where, body, reply.text)
    reply = fay.request("PUT", f"/api/v1/bots/{slow}/open", b'{"open_to_others": true}', JSON)
    assert reply.status == 403 and "only slow's owner" in reply.json()["error"]
    # over the quota: the first challenges wait or run (the slow bot takes its time), the next is refused
    started = []
    for _ in range(MAX_CHALLENGES):
        reply = eve.post_json(path, {"opponent": "builtin:random", "games": 100})
        assert reply.status == 200, reply.text
        assert reply.json()["rated"] is False
        started.append(reply.json()["tournament_id"])
    reply = eve.post_json(path, {"opponent": "builtin:heuristic", "games": 2})
    assert reply.status == 429 and f"you have {MAX_CHALLENGES} challenges unfinished" in reply.json()["error"]
    for tournament_id in started:
        assert eve.post_json(f"/api/v1/tournaments/{tournament_id}/cancel", {}).status == 200
    # opened, fay may challenge with it (her bad game count is then what is wrong)
    reply = eve.request("PUT", f"/api/v1/bots/{slow}/open", b'{"open_to_others": true}', JSON)
    assert reply.status == 200 and reply.json() == {"id": slow, "name": "slow", "open_to_others": True}
    reply = fay.post_json(path, {"opponent": "builtin:random", "games": 3})
    assert reply.status == 400 and "a multiple of 2 games" in reply.json()["error"]
    assert 'id="challenge-form"' not in web.client().get(f"/bots/{slow}").text  # signed out: no form
    # the form needs its CSRF token; the spec documents the calls
    eve_web = web.client()
    eve_web.log_in("eve", "correct horse battery")
    reply = eve_web.post_form(f"/bots/{slow}/challenges", {"opponent": "builtin:random", "games": "2"})
    assert reply.status == 403 and "CSRF" in reply.text
    # the owner's switch on the page closes it again
    fields = {"open_to_others": "false", "csrf": eve_web.csrf(f"/bots/{slow}")}
    assert eve_web.post_form(f"/bots/{slow}/open", fields).status == 303
    assert eve.get(f"/api/v1/bots/{slow}").json()["open_to_others"] is False
    assert fay.post_json(path, {"opponent": "builtin:random", "games": 3}).status == 403
    spec = web.client().get("/api/openapi.json").json()["paths"]
    assert "429" in spec["/api/v1/bots/{bot_id}/challenges"]["post"]["responses"]
    assert "put" in spec["/api/v1/bots/{bot_id}/open"]
    with web.store.session() as session:
        kinds = session.scalars(select(Tournament.kind).where(Tournament.id.in_(started))).all()
    assert kinds == ["challenge"] * MAX_CHALLENGES
    assert [line["status"] for line in challenges_of(eve, slow)] == ["done"]  # the cancelled are gone
