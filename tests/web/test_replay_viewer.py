"""The replay viewer's card table in headless Chromium, for each game: a finished match of built-in
bots, stepped with the keyboard, played automatically, seen from one seat, opened from a step link,
at desktop and at phone width (no horizontal scrolling).

Screenshots go to ``$ARENA_SCREENSHOTS`` (``ARENA_SCREENSHOTS=docs/screenshots`` refreshes the
README's), else to the test's temporary folder: replay-{game}.png, replay-{game}-phone.png.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from recorded import add_bot, add_match, add_tournament
from served import Client, Web, wait_for_tournament

from arena.store.models import LiveLine, Match, MatchStatus, now

BOTS = {
    "edible": ["builtin:heuristic", "builtin:random"],
    "believe": ["builtin:honest", "builtin:caller", "builtin:random"],
    "kozel": ["builtin:heuristic", "builtin:random"],
}


@pytest.fixture(scope="module")
def matches(web: Web) -> dict[str, int]:
    """A finished match of each game (two games each, fixed seeds); its id by game."""
    admin = web.client(web.admin_token)
    created = {}
    for game, bots in BOTS.items():
        reply = admin.post_json(
            "/api/v1/tournaments", {"game": game, "bots": bots, "games_per_match": 2, "seed": 11}
        )
        assert reply.status == 200, reply.text
        created[game] = reply.json()["id"]
    found = {}
    for game, tournament_id in created.items():
        state = wait_for_tournament(admin, tournament_id)
        match = state["matches"][0]
        assert match["status"] == "done", match
        found[game] = match["id"]
    return found


@pytest.fixture
def desktop(browser: Browser) -> Iterator[Page]:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    yield page
    page.close()


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    # not is_mobile: a mobile viewport widens itself to fit the page, and hides a sideways scroll
    page = browser.new_page(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    yield page
    page.close()


def replay(client: Client, match_id: int, seat: int | None = None) -> dict[str, Any]:
    query = "" if seat is None else f"?seat={seat}"
    reply = client.get(f"/api/v1/matches/{match_id}/replay/0{query}")
    assert reply.status == 200, reply.text
    data: dict[str, Any] = reply.json()
    return data


def hand_sizes(game: str, step: dict[str, Any]) -> list[int]:
    """Cards in every seat's hand after ``step``, from the whole state the replay carries."""
    hands = step["state"]["hands"]
    if game == "edible":
        return [hand["sausage"] + hand["boot"] for hand in hands]
    return [len(hand) for hand in hands]


def interesting(game: str, steps: list[dict[str, Any]]) -> int:
    """A step with something on the table: a trick with a face-down discard, late in a deal
    (kozel); an attempt turning cards after an auction (edible); a pile of two claims or more after
    a call (believe). The first test that some step passes decides."""
    tests: dict[str, list[Callable[[dict[str, Any]], bool]]] = {
        "kozel": [
            lambda p: (
                len(p["trick"]) >= 3
                and any(x["discarded"] for x in p["trick"])
                and sum(p["team_tricks"]) >= 3
            ),
            lambda p: len(p["trick"]) >= 2,
        ],
        "edible": [
            lambda p: p["phase"] == "attempt" and len(p["turned"]) >= 1 and len(p["auction"]) >= 2,
            lambda p: len(p["auction"]) >= 2,
        ],
        "believe": [
            lambda p: len(p["claims"]) >= 2 and len(p["checks"]) >= 1,
            lambda p: len(p["claims"]) >= 1,
        ],
    }
    for wanted in tests[game]:
        for index, step in enumerate(steps):
            if wanted(step["public"]):
                return index
    raise AssertionError(f"no step of this {game} game has anything on the table")


WIDE = """[...document.querySelectorAll("body *")]
    .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
    .slice(-6).map((e) => `${e.tagName}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`)"""
"""The elements that stick out on the right, the innermost last."""


def no_horizontal_scroll(page: Page) -> None:
    scroll, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert page.viewport_size is not None and inner == page.viewport_size["width"]
    wide = page.evaluate(WIDE) if scroll > inner else []
    assert scroll <= inner, f"the page scrolls sideways: {scroll} px wide in a {inner} px window: {wide}"


def position(page: Page, step: int) -> None:
    expect(page.locator("#replay-position")).to_have_text(re.compile(rf"^step {step} of \d+$"))


def check_table(page: Page, game: str, step: dict[str, Any]) -> None:
    """The table shows what the replay says after ``step`` (every card: view "everything")."""
    table = page.locator("#replay-table")
    for seat, size in enumerate(hand_sizes(game, step)):
        hand = table.locator(f".tseat[data-seat='{seat}'] .hand .card")
        expect(hand).to_have_count(size)
        expect(table.locator(f".tseat[data-seat='{seat}'] .hand .card.back")).to_have_count(0)
    public = step["public"]
    if game == "kozel":
        expect(table.locator(".trick .play")).to_have_count(len(public["trick"]))
        for play, real in zip(public["trick"], step["state"]["trick"], strict=True):
            shown = table.locator(f".trick .play[data-seat='{play['seat']}'] .card")
            expect(shown).to_have_count(len(real["cards"]))
            for card in real["cards"]:  # discards too: every card shows once the match is over
                expect(
                    table.locator(f".trick .play[data-seat='{play['seat']}'] .card[data-card='{card}']")
                ).to_have_count(1)
        expect(table.locator(".stock")).to_have_attribute("data-count", str(public["stock_count"]))
        expect(table.locator(f".trump .card[data-card='{public['trump_card']}']")).to_have_count(1)
        expect(table.locator(".series")).to_contain_text(f"team A {public['defeat_points'][0]}")
    elif game == "edible":
        expect(table.locator(".auction .bid")).to_have_count(len(public["auction"]))
        for bid_box, (_, bid) in zip(table.locator(".auction .bid").all(), public["auction"], strict=True):
            expect(bid_box.locator(".bid-what")).to_have_text(str(bid) if bid else "pass")
        for seat, cards in enumerate(step["state"]["mats"]):
            expect(table.locator(f".tseat[data-seat='{seat}'] .mat .card")).to_have_count(len(cards))
    else:
        size = sum(claim["size"] for claim in public["claims"])
        expect(table.locator(".pile")).to_have_attribute("data-count", str(size))
        expect(table.locator(".pile")).to_have_attribute("data-kind", str(public["pile_kind"]))
        expect(table.locator(".claims .claim")).to_have_count(len(public["claims"]))
        revealed = public["checks"][-1]["revealed"] if public["checks"] else []
        expect(table.locator(".call .card")).to_have_count(len(revealed))


def check_seat_view(page: Page, game: str, step: dict[str, Any], seen: dict[str, Any]) -> None:
    """Seat 1's view: its own hand face up, everybody else's face down, no hidden card of theirs."""
    table = page.locator("#replay-table")
    sizes = hand_sizes(game, step)
    for seat, size in enumerate(sizes):
        hand = table.locator(f".tseat[data-seat='{seat}'] .hand")
        if seat == 1:
            expect(hand.locator(".card.face")).to_have_count(size)
        else:
            expect(hand.locator(".card.back")).to_have_count(size)
            expect(hand.locator(".card.face")).to_have_count(0)
    if game == "kozel":
        for play in step["public"]["trick"]:  # face-down discards: seat 1 knows its own only
            shown = table.locator(f".trick .play[data-seat='{play['seat']}']")
            backs = 0 if play["seat"] == 1 else play["discarded"]
            expect(shown.locator(".card.back")).to_have_count(backs)
        expect(table.locator(".tseat:not([data-seat='1']) .discards")).to_have_count(0)
    elif game == "edible":
        turned = {(t["seat"], t["position"]) for t in step["public"]["turned"]}
        for seat, view in enumerate(step["public"]["seats"]):
            if seat != 1:
                hidden = view["mat_count"] - sum(1 for s, _ in turned if s == seat)
                expect(table.locator(f".tseat[data-seat='{seat}'] .mat .card.back")).to_have_count(hidden)
        expect(table.locator(".tseat[data-seat='1'] .mat .card.face")).to_have_count(len(seen["my_mat"]))
    else:
        mine = sum(claim["size"] for claim in step["public"]["claims"])
        expect(table.locator(".pile .card.back")).to_have_count(mine)
        expect(table.locator(".pile .card.face")).to_have_count(0)


@pytest.mark.parametrize("game", ["edible", "believe", "kozel"])
def test_the_replay_viewer_lays_out_the_table(
    web: Web, browser: Browser, matches: dict[str, int], desktop: Page, phone: Page, shots: Path, game: str
) -> None:
    match_id = matches[game]
    client = web.client()
    data = replay(client, match_id)
    steps = data["steps"]
    target = interesting(game, steps)
    page = desktop
    page.goto(f"{web.base}/matches/{match_id}")
    position(page, 0)
    check_table(page, game, steps[0])
    no_horizontal_scroll(page)

    # the keyboard: End, Home, then → to the step, ← back and → again
    page.keyboard.press("End")
    position(page, len(steps) - 1)
    check_table(page, game, steps[-1])
    page.keyboard.press("Home")
    position(page, 0)
    for _ in range(target + 1):
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowLeft")
    position(page, target)
    check_table(page, game, steps[target])
    assert page.evaluate("window.location.hash") == f"#game=0&step={target}"
    expect(page.locator("#replay-step")).to_contain_text(f"Decision {steps[target]['number']}")
    no_horizontal_scroll(page)
    page.screenshot(path=shots / f"replay-{game}.png", full_page=True)

    # autoplay: space plays (the step advances by itself), space pauses
    page.select_option("#replay-speed", "150")
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press(" ")
    expect(page.locator("#replay")).to_have_attribute("data-playing", "yes")
    expect(page.locator("#replay-position")).not_to_have_text(re.compile(rf"^step {target} of"))
    page.wait_for_timeout(400)
    page.keyboard.press(" ")
    expect(page.locator("#replay")).to_have_attribute("data-playing", "no")
    now = int(page.locator("#replay-position").inner_text().split()[1])
    assert now > target + 1
    page.wait_for_timeout(500)
    position(page, now)  # paused: it stays
    check_table(page, game, steps[now])

    # one seat's view: its cards, nobody else's
    page.keyboard.press("Home")
    for _ in range(target):
        page.keyboard.press("ArrowRight")
    page.select_option("#replay-view", "1")
    position(page, target)
    expect(page.locator("#replay-state-title")).to_contain_text("What seat 1")
    seen = replay(client, match_id, seat=1)["steps"][target]["observation"]
    check_seat_view(page, game, steps[target], seen)
    expect(page.locator(".tseat[data-seat='1']")).to_have_class(re.compile(r"\bviewer\b"))
    assert page.evaluate("window.location.hash") == f"#game=0&step={target}&seat=1"
    expect(page.locator("#replay-link")).to_have_attribute("href", f"#game=0&step={target}&seat=1")

    # the replay file to download
    download = page.locator("#replay-download")
    expect(download).to_have_attribute("href", f"/api/v1/matches/{match_id}/replay")
    reply = client.get(f"/api/v1/matches/{match_id}/replay")
    assert reply.status == 200 and "attachment" in reply.headers.get("content-disposition", "")
    recorded = json.loads(reply.body)
    assert recorded["game"] == game and len(recorded["games"]) == 2

    # a step link, opened afresh (the second game, seen by seat 1), at phone width
    phone.goto(f"{web.base}/matches/{match_id}#game=1&step=3&seat=1")
    position(phone, 3)
    expect(phone.locator("#replay-game")).to_have_value("1")
    expect(phone.locator("#replay-view")).to_have_value("1")
    game_one = client.get(f"/api/v1/matches/{match_id}/replay/1").json()["steps"][3]
    sizes = hand_sizes(game, game_one)
    for seat, size in enumerate(sizes):
        cls = ".card.face" if seat == 1 else ".card.back"
        expect(phone.locator(f"#replay-table .tseat[data-seat='{seat}'] .hand {cls}")).to_have_count(size)
    no_horizontal_scroll(phone)
    phone.goto(f"{web.base}/matches/{match_id}#game=0&step={target}")
    position(phone, target)
    check_table(phone, game, steps[target])
    no_horizontal_scroll(phone)
    phone.screenshot(path=shots / f"replay-{game}-phone.png", full_page=True)
    for index in (0, len(steps) // 3, len(steps) - 1):  # the biggest hands, the end
        phone.goto(f"{web.base}/matches/{match_id}#game=0&step={index}")
        position(phone, index)
        no_horizontal_scroll(phone)


def test_the_replay_file_is_there_once_the_match_is_over(web: Web) -> None:
    with web.store.session() as session:
        bots = [add_bot(session, "edible", f"file-{name}")[0] for name in "ab"]
        running = add_match(session, add_tournament(session, "edible"), bots, [], MatchStatus.RUNNING)
    client = web.client()
    reply = client.get(f"/api/v1/matches/{running}/replay")
    assert reply.status == 403 and "once it is over" in reply.json()["error"]
    assert client.get("/api/v1/matches/999999/replay").status == 404


def test_a_running_match_is_watched_on_the_same_table(
    web: Web, matches: dict[str, int], desktop: Page, shots: Path
) -> None:
    """A running kozel match (its live replay: a finished match's file, as the worker would have
    written it line by line): the table in the public view, every hand face down, discards too."""
    recorded = json.loads(web.client().get(f"/api/v1/matches/{matches['kozel']}/replay").body)
    lines = [{key: value for key, value in recorded.items() if key != "games"}, *recorded["games"]]
    with web.store.session() as session:
        bots = [add_bot(session, "kozel", f"live-{name}")[0] for name in "ab"]
        match_id = add_match(
            session, add_tournament(session, "kozel"), [*bots, *bots], [], MatchStatus.RUNNING
        )
        match = session.get_one(Match, match_id)
        match.worker, match.lease_until = "watched", now() + timedelta(hours=1)
        session.add_all(
            LiveLine(match_id=match_id, worker="watched", line=number, data=json.dumps(line))
            for number, line in enumerate(lines)
        )
    live = web.client().get(f"/api/v1/matches/{match_id}/replay/0").json()
    assert not live["reveal"]
    target = interesting("kozel", [{"public": step["state"]} for step in live["steps"]])
    page = desktop
    page.goto(f"{web.base}/matches/{match_id}#game=0&step={target}&seat=1")  # no seat while it runs
    position(page, target)
    expect(page.locator("#replay-view")).to_have_value("all")
    expect(page.locator("#replay-download")).to_have_count(0)
    public = live["steps"][target]["state"]
    table = page.locator("#replay-table")
    for seat, size in enumerate(public["hand_counts"]):
        expect(table.locator(f".tseat[data-seat='{seat}'] .hand .card.back")).to_have_count(size)
    expect(table.locator(".hand .card.face, .discards, .card.peek")).to_have_count(0)
    expect(table.locator(".trick .play")).to_have_count(len(public["trick"]))
    discards = sum(play["discarded"] for play in public["trick"])
    expect(table.locator(".trick .card.back")).to_have_count(discards)
    page.keyboard.press("ArrowRight")
    position(page, target + 1)
    no_horizontal_scroll(page)
    page.screenshot(path=shots / "live-kozel.png", full_page=True)
