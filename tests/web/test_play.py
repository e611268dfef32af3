"""A person plays the built-in bots in headless Chromium, a whole game of each game, with the
keyboard: only legal moves are offered, the result shows, the match is recorded unrated and its
replay page works; a kozel molodka and believe placements are among the moves (seeds that reach
them); the page is sent nothing its seat may not see (every message's observation is one the seat
had in the recorded game) and shows no other seat's hand.

Screenshots of each game in progress go to ``$ARENA_SCREENSHOTS`` (``ARENA_SCREENSHOTS=docs/screenshots``
refreshes the README's), else to the test's temporary folder: play-{game}.png, play-{game}-phone.png.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, expect
from served import Web
from sqlalchemy import select

from arena.ratings.rated import is_rated
from arena.store.models import Match, MatchStatus, RatingPoint, SeatResult, User

WAIT_MS = 90_000
MOVES = "#play-actions .act:not(:disabled), #play-actions .place-count:not(:disabled)"
TURN_OR_OVER = f"""() => document.getElementById('play').dataset.over === 'true' ||
  document.querySelector('{MOVES}') !== null"""


def person(web: Web, browser: Browser, name: str) -> Page:
    """A signed-in page of a new user ``name``."""
    return web.signed_in_page(browser, name)


def start(page: Page, base: str, game: str, opponents: list[str], seed: int, config: dict[str, Any]) -> int:
    """Start a game from the form; its match id."""
    page.goto(f"{base}/play?game={game}")
    selects = page.locator("#new-game select[name=opponent]")
    for index in range(selects.count()):
        selects.nth(index).select_option(opponents[index] if index < len(opponents) else "")
    page.fill("#new-game input[name=seed]", str(seed))
    page.fill("#new-game input[name=config]", json.dumps(config))
    page.click("#new-game button[type=submit]")
    page.wait_for_url(re.compile(r"/play/\d+$"))
    return int(page.url.rsplit("/", 1)[1])


def no_other_hand_shows(page: Page) -> None:
    """No seat but the viewer's shows a card of its hand face up."""
    assert page.locator(".tseat.viewer").count() == 1
    assert page.locator(".tseat:not(.viewer) .hand .card.face").count() == 0


def move(page: Page, game: str, shots: Path | None) -> str:
    """Make one move with the keyboard (a molodka when offered, the lowest bid in edible, a one-card
    placement in believe, else the first move listed); its type."""
    legal = [
        json.loads(text)
        for text in page.locator("#play-actions .act-list .act").evaluate_all(
            "els => els.map(e => e.dataset.action)"
        )
    ]
    kinds = [action["type"] for action in legal]
    if shots is not None:
        page.screenshot(path=shots / f"play-{game}.png", full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(path=shots / f"play-{game}-phone.png", full_page=True)
        page.set_viewport_size({"width": 1280, "height": 900})
    for wanted in ("Molodka", "Bid"):
        if wanted in kinds[:9]:
            page.keyboard.press(str(kinds.index(wanted) + 1))
            return wanted
    count = page.locator("#play-actions .place-count")
    if count.count():
        count.first.focus()
        page.keyboard.press("ArrowUp")  # one card of the first kind held
        claim = page.locator("#play-actions .place-claim")
        if claim.is_enabled():
            claim.select_option(count.first.get_attribute("data-kind"))
        page.locator("#play-actions .act-Place").focus()
        page.keyboard.press("Enter")
        return "Place"
    assert legal, "a turn with no move offered"
    page.keyboard.press("1")
    return str(kinds[0])


def play_out(page: Page, game: str, shots: Path) -> tuple[list[str], list[dict[str, Any]]]:
    """Play to the end: the moves' types, and every message the page received."""
    moves: list[str] = []
    while True:
        page.wait_for_function(TURN_OR_OVER, timeout=WAIT_MS)
        if page.get_attribute("#play", "data-over") == "true":
            break
        no_other_hand_shows(page)
        seq = page.get_attribute("#play", "data-seq")
        moves.append(move(page, game, shots if len(moves) == 2 else None))
        page.wait_for_function(
            f"() => document.getElementById('play').dataset.seq !== '{seq}' || "
            "document.getElementById('play-error').textContent !== ''",
            timeout=WAIT_MS,
        )
        assert page.text_content("#play-error") == "", (moves, page.text_content("#play-error"))
    messages: list[dict[str, Any]] = page.evaluate("window.arenaPlay.messages")
    return moves, messages


def check_recorded(web: Web, match_id: int, messages: list[dict[str, Any]], name: str) -> None:
    """The match is done, unrated and moved no rating; every observation the page was sent is one
    that its seat had at some step of the recorded game."""
    with web.store.session() as session:
        match = session.get_one(Match, match_id)
        assert match.status == MatchStatus.DONE, match.error
        assert match.tournament.kind == "play" and not is_rated(match.tournament)
        assert session.scalars(select(RatingPoint).where(RatingPoint.match_id == match_id)).all() == []
        seats = session.scalars(select(SeatResult).where(SeatResult.match_id == match_id)).all()
        assert [seat.statuses for seat in seats] == [{"ok": 1}] * len(seats)
        assert session.scalar(select(User.id).where(User.name == name)) == match.tournament.created_by
    replay = web.client(web.admin_token).get(f"/api/v1/matches/{match_id}/replay/0?seat=0").json()
    seen = {json.dumps(step["observation"], sort_keys=True) for step in replay["steps"]}
    sent = [message for message in messages if message["observation"] is not None]
    assert sent and all(message["seat"] == 0 for message in sent)
    assert all(json.dumps(message["observation"], sort_keys=True) in seen for message in sent)
    keys = {
        "seq",
        "match_id",
        "game",
        "names",
        "seat",
        "observation",
        "turn",
        "result",
        "statuses",
        "note",
        "over",
    }
    assert all(set(message) == keys for message in messages)


def play_whole_game(
    web: Web,
    browser: Browser,
    shots: Path,
    game: str,
    opponents: list[str],
    seed: int,
    config: dict[str, Any],
) -> list[str]:
    name = f"{game}-player"
    page = person(web, browser, name)
    match_id = start(page, web.base, game, opponents, seed, config)
    moves, messages = play_out(page, game, shots)
    expect(page.locator("#play-result h2")).to_contain_text("Game over: you placed")
    expect(page.locator("#play-status")).to_have_text("The game is over and recorded.")
    check_recorded(web, match_id, messages, name)
    page.click("#play-result a.replay-link")
    expect(page.locator("#replay-table .ttable")).to_be_visible()
    page.close()
    return moves


def test_a_whole_kozel_series_with_a_molodka(web: Web, browser: Browser, shots: Path) -> None:
    moves = play_whole_game(
        web,
        browser,
        shots,
        "kozel",
        ["builtin:random", "builtin:heuristic", "builtin:random"],
        2,
        {"series_target": 1},
    )
    assert "Molodka" in moves and {"Lead", "Beat"} <= set(moves)


def test_a_whole_believe_game_with_placements(web: Web, browser: Browser, shots: Path) -> None:
    moves = play_whole_game(
        web, browser, shots, "believe", ["builtin:honest", "builtin:caller"], 3, {"kinds": 3, "copies": 4}
    )
    assert moves.count("Place") >= 2


def test_a_whole_edible_game(web: Web, browser: Browser, shots: Path) -> None:
    moves = play_whole_game(web, browser, shots, "edible", ["builtin:heuristic", "builtin:random"], 4, {})
    assert {"Place", "Bid", "Flip"} <= set(moves)
