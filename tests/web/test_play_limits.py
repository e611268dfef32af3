"""A person's game under its bounds, on a server whose clock is short (``ARENA_PLAY_DECISION_S``):
a page reloaded mid-game finds its decision again; a tab closed mid-game times its seat out and the
match finishes; a user plays one game at a time and sends a bounded number of answers a second;
bad requests get clear errors; only legal answers are taken (``Table.answer``)."""

from __future__ import annotations

import concurrent.futures
import html
import json
import os
import re
import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect
from served import Client, Web, serving
from sqlalchemy import select

from arena.games.believe.engine import BELIEVE, BelieveObservation, Place
from arena.games.registry import get_game
from arena.runner.human import Table, Turn
from arena.store.models import Bot, BotVersion, Match, MatchStatus, SeatResult, User
from arena.store.repo import create_user
from arena.web.playing import Rate
from arena.web.security import set_password

CLOCK_S = "8"
PASSWORD = "a long enough password"
pytestmark = pytest.mark.serial  # a reload must come within the short clock
MOVES = "#play-actions .act:not(:disabled)"


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    before = os.environ.get("ARENA_PLAY_DECISION_S")
    os.environ["ARENA_PLAY_DECISION_S"] = CLOCK_S  # the server started now inherits it
    try:
        with serving(tmp_path_factory.mktemp("arena-home")) as web:
            yield web
    finally:
        if before is None:
            del os.environ["ARENA_PLAY_DECISION_S"]
        else:
            os.environ["ARENA_PLAY_DECISION_S"] = before


def person(web: Web, browser: Browser, name: str) -> Page:
    """A signed-in page of a new user ``name``."""
    return web.signed_in_page(browser, name, PASSWORD)


def start(page: Page, base: str) -> None:
    """Submit the form for an edible game against one random bot."""
    page.goto(f"{base}/play?game=edible")
    page.locator("#new-game select[name=opponent]").first.select_option("builtin:random")
    page.click("#new-game button[type=submit]")


def started(page: Page, base: str) -> int:
    start(page, base)
    page.wait_for_url(re.compile(r"/play/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def finished(web: Web, match_id: int, timeout: float = 120) -> list[SeatResult]:
    """The match's seats once it is recorded."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with web.store.session() as session:
            match = session.get_one(Match, match_id)
            if match.status not in (MatchStatus.RUNNING, MatchStatus.PENDING):
                assert match.status == MatchStatus.DONE, match.error
                seats = list(session.scalars(select(SeatResult).where(SeatResult.match_id == match_id)))
                session.expunge_all()
                return seats
        time.sleep(0.3)
    pytest.fail(f"match {match_id} did not finish within {timeout:.0f} s")


def turn_number(page: Page) -> int:
    page.wait_for_selector(MOVES, timeout=60_000)
    number: int = page.evaluate("window.arenaPlay.messages.filter(m => m.turn).at(-1).turn.number")
    return number


def test_a_reloaded_page_finds_its_turn_and_a_closed_tab_times_the_seat_out(
    web: Web, browser: Browser
) -> None:
    page = person(web, browser, "leaver")
    match_id = started(page, web.base)
    number = turn_number(page)
    page.reload()
    assert turn_number(page) == number  # the same decision, still waiting
    page.close()
    seats = finished(web, match_id)
    assert seats[0].statuses.get("timeout") == 1, seats[0].statuses
    assert seats[1].statuses == {"ok": 1}


def test_one_game_at_a_time_and_bounded_answers(web: Web, browser: Browser) -> None:
    page = person(web, browser, "eager")
    match_id = started(page, web.base)
    other = browser.new_page()
    # Playwright types what cookies() reads as Cookie and what add_cookies() takes as SetCookieParam:
    # the same keys, its values Optional in the second (and a TypedDict's values are invariant).
    other.context.add_cookies(page.context.cookies())  # type: ignore[arg-type]
    start(other, web.base)
    expect(other.locator("main")).to_contain_text("you are playing 1 game already")
    expect(other.locator("main")).to_contain_text(f"yours: /play/{match_id}")
    other.goto(f"{web.base}/play")
    expect(other.locator("#in-play a")).to_have_attribute("href", f"/play/{match_id}")
    # answers: a stale decision is refused with its reason, and a flood is cut off
    client = Client(web.base)
    client.log_in("eager", PASSWORD)
    csrf = client.csrf("/play")
    headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf}
    stale = json.dumps({"decision": 10_000, "action": {"type": "Pass"}}).encode()
    replies = [client.request("POST", f"/play/{match_id}/act", stale, headers) for _ in range(22)]
    assert replies[0].status == 409 and "not being asked" in replies[0].json()["error"]
    assert replies[-1].status == 429 and "slow down" in replies[-1].json()["error"]
    page.close()  # its seat times out, the match ends: another game may start
    finished(web, match_id)
    assert started(other, web.base) > match_id
    other.close()


def test_bad_requests_get_clear_errors(web: Web) -> None:
    anyone = Client(web.base)
    assert anyone.get("/play/1").status == 401
    assert anyone.request("POST", "/play/1/act", b"{}").json() == {"error": "log in to play"}
    with web.store.session() as session:
        user, _ = create_user(session, "prober")
        set_password(user, PASSWORD)
    client = Client(web.base)
    client.log_in("prober", PASSWORD)
    assert client.request("POST", "/play/1/act", b"{}").status == 403  # no CSRF token
    csrf = client.csrf("/play")
    headers = {"Content-Type": "application/json", "X-CSRF-Token": csrf}
    assert client.request("POST", "/play/1/act", b"{}", headers).status == 404  # not theirs
    form = {"csrf": csrf, "game": "kozel", "opponent": ["builtin:random"], "config": "{}"}
    reply = client.post_form("/play", form)
    assert reply.status == 400 and "choose 3 to 3 opponents, not 1" in reply.text
    reply = client.post_form("/play", {**form, "opponent": ["builtin:random"] * 3, "seed": "x"})
    assert reply.status == 400 and "a seed is a whole number" in reply.text
    reply = client.post_form("/play", {**form, "opponent": ["builtin:nobody"] * 3})
    assert reply.status == 400 and "kozel has no built-in bot 'builtin:nobody'" in html.unescape(reply.text)
    reply = client.post_form(
        "/play", {**form, "opponent": ["builtin:random"] * 3, "config": '{"series_target": 0}'}
    )
    assert reply.status == 400 and "at least 1" in reply.text
    # the opponents offered: built-ins, one's own bots and others' open bots (validated ones only)
    with web.store.session() as session:
        owner, _ = create_user(session, "lender")
        prober = session.scalars(select(User).where(User.name == "prober")).one().id
        for name, owner_id, open_to_others, validated in [
            ("mine", prober, False, True),
            ("theirs-open", owner.id, True, True),
            ("theirs-closed", owner.id, False, True),
            ("mine-failed", prober, False, False),
        ]:
            bot = Bot(game="edible", name=name, owner_id=owner_id, open_to_others=open_to_others)
            session.add(bot)
            session.flush()
            session.add(BotVersion(bot_id=bot.id, spec=f"artifact:{name}", validated=validated))
    offered = re.findall(r'<option value="([^"]*)"', client.get("/play?game=edible").text)
    assert {"builtin:random", "builtin:heuristic", "mine", "theirs-open"} <= set(offered)
    assert not {"theirs-closed", "mine-failed"} & set(offered)
    reply = client.post_form("/play", {"csrf": csrf, "game": "edible", "opponent": ["theirs-closed"]})
    assert reply.status == 400 and "no edible bot 'theirs-closed' you may play against" in html.unescape(
        reply.text
    )
    # another user's bot has the name of prober's seat: prober's seat is named apart
    with web.store.session() as session:
        squatter, _ = create_user(session, "squatter")
        session.add(Bot(game="edible", name="human:prober", owner_id=squatter.id))
    form = {"csrf": csrf, "game": "edible", "opponent": ["builtin:random"], "config": "{}"}
    reply = client.post_form("/play", form)
    assert reply.status == 303, reply.text
    location = next(value for key, value in reply.headers.items() if key.lower() == "location")
    with web.store.session() as session:
        match = session.get_one(Match, int(location.rsplit("/", 1)[1]))
        names = [session.get_one(BotVersion, version).bot.name for version in match.entrants]
    assert names == [f"human:prober#{prober}", "builtin:random"]


def test_only_legal_answers_are_taken() -> None:
    game = get_game("believe")
    seen = BelieveObservation(0, 0, 1, (2, 1, 0), (3, 3, 3), (0, 0, 0), False, -1, (), (), (), 0)
    answer: concurrent.futures.Future[object] = concurrent.futures.Future()
    table = Table()
    table.show(turn=Turn(4, seen, (), time.monotonic() + 60, answer))
    assert table.answer(game, 3, BELIEVE) is not None  # not the decision asked
    assert table.answer(game, 4, BELIEVE) == "no pile is open, there is nothing to call"
    assert table.answer(game, 4, Place((2,), 0)) is not None  # a kind not held
    assert not answer.done()
    assert table.answer(game, 4, Place((0, 1), 2)) is None
    assert answer.result() == Place((0, 1), 2)
    assert table.answer(game, 4, Place((0,), 0)) is not None  # answered already


def test_a_rate_takes_its_burst_then_refuses() -> None:
    rate = Rate(per_s=1.0, burst=5)
    assert [rate.take() for _ in range(6)] == [True] * 5 + [False]
