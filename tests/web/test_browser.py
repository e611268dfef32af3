"""The web app in headless Chromium (Debian's chromium driven by Playwright): sign up, log out and in,
submit a bot, run a small tournament, open the ladder, a bot page and a replay.

Screenshots of each page go to ``$ARENA_SCREENSHOTS`` (the README's are made with
``ARENA_SCREENSHOTS=docs/screenshots``), else to the test's temporary folder.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Browser, Page, expect
from recorded import add_bot, add_match, add_tournament
from served import STARTER, Web, ladder_listing

from arena.store.models import Tournament


def test_sign_up_submit_run_and_look_at_the_results(web: Web, browser: Browser, shots: Path) -> None:
    page: Page = browser.new_page(viewport={"width": 1200, "height": 860})
    base = web.base
    # sign up: the API token is shown once
    page.goto(f"{base}/signup")
    page.fill("input[name=name]", "dana")
    page.fill("input[name=password]", "a long enough password")
    page.click("#signup-form button[type=submit]")
    expect(page.locator("h1")).to_have_text("Welcome, dana")
    assert len(page.locator("#api-token").inner_text().strip()) >= 30
    expect(page.locator("nav .who")).to_have_text("dana")
    # log out, then log in again (a wrong password first)
    page.click("nav button:has-text('Log out')")
    expect(page.locator("nav")).to_contain_text("Log in")
    page.goto(f"{base}/login")
    page.fill("input[name=name]", "dana")
    page.fill("input[name=password]", "not the password")
    page.click("#login-form button[type=submit]")
    expect(page.locator(".error")).to_have_text("wrong user name or password")
    page.screenshot(path=shots / "login.png", full_page=True)
    page.fill("input[name=password]", "a long enough password")
    page.click("#login-form button[type=submit]")
    expect(page.locator("nav .who")).to_have_text("dana")

    # submit a bot: validated in the sandbox, then its page
    page.goto(f"{base}/submit")
    page.select_option("select[name=game]", "edible")
    page.fill("input[name=name]", "dana-starter")
    page.set_input_files("input[name=file]", str(STARTER))
    page.screenshot(path=shots / "submit.png", full_page=True)
    page.click("#submit-form button[type=submit]")
    expect(page.locator("h1")).to_contain_text("dana-starter")
    expect(page.locator("table").first).to_contain_text("validating")  # answered at once
    expect(page.locator("table").first).to_contain_text("passed", timeout=300_000)  # the page refreshes
    bot_url = page.url.split("?")[0]

    # a small tournament against the built-ins, followed live
    page.goto(f"{base}/tournaments?game=edible")
    page.check("input[name=bots][value=dana-starter]")
    page.check("input[name=bots][value='builtin:random']")
    page.check("input[name=bots][value='builtin:heuristic']")
    page.fill("input[name=games_per_match]", "6")
    page.click("#new-tournament button[type=submit]")
    expect(page.locator("h1")).to_contain_text("Tournament")
    expect(page.locator("#tournament-progress")).to_have_text(
        re.compile(r"^(\d+)/\1 matches finished$"), timeout=180_000
    )
    expect(page.locator("table").first).to_contain_text("dana-starter")
    page.screenshot(path=shots / "tournament.png", full_page=True)

    # the ladder (refitted when the tournament ends: intervals shown)
    page.goto(f"{base}/ladder/edible")
    expect(page.locator("#ladder")).to_contain_text("dana-starter")
    for _ in range(60):  # the refit lands just after the last match
        if "±" in page.locator("#ladder").inner_text():
            break
        page.wait_for_timeout(500)
        page.reload()
    expect(page.locator("#ladder")).to_contain_text("±")
    page.screenshot(path=shots / "ladder.png", full_page=True)

    # the bot page: rating history chart, versions, its record against the others, its matches
    page.goto(bot_url)
    expect(page.locator("svg.chart")).to_be_visible()
    expect(page.locator("#head-to-head")).to_contain_text("builtin:heuristic")
    expect(page.locator("nav.pager").first).to_contain_text("newest first")
    page.screenshot(path=shots / "bot.png", full_page=True)

    # a match and its replay, stepped through
    page.locator("a[href^='/matches/']").first.click()
    expect(page.locator("#match-status")).to_have_text("done")
    expect(page.locator("#replay-step")).to_contain_text("The deal")
    expect(page.locator("#replay-state")).to_contain_text("hands")
    page.click("#replay-next")
    expect(page.locator("#replay-step")).to_contain_text("Decision 0")
    page.click("#replay-next")
    expect(page.locator("#replay-step")).to_contain_text("Decision 1")
    expect(page.locator("#replay-position")).to_contain_text("step 2 of")
    page.select_option("#replay-view", "1")  # what seat 1 saw: its observation, not the whole state
    expect(page.locator("#replay-state-title")).to_contain_text("What seat 1")
    expect(page.locator("#replay-state")).to_contain_text("hand_sausages")  # seat 1's own hand only
    expect(page.locator("#replay-state")).not_to_contain_text("hands")
    page.select_option("#replay-view", "all")
    expect(page.locator("#replay-state")).to_contain_text("hands")
    page.click("#replay-last")
    expect(page.locator("#replay-result")).to_contain_text("place 1")
    page.click("#replay-prev")
    page.screenshot(path=shots / "replay.png", full_page=True)
    page.close()


def test_the_ladder_page_follows_the_ladder_without_a_reload(web: Web, browser: Browser) -> None:
    """The page asks for the ladder's revision every few seconds and, once a landing match has moved
    the ladder (the server's scheduler takes it in), puts the new table in place of the old one and
    says so: no reload."""
    with web.store.session() as session:
        first, second = (add_bot(session, "kozel", name)[0] for name in ("watched-a", "watched-b"))
        ladder = add_tournament(session, "kozel", "ladder")
        add_match(session, ladder, [first, second, first, second], [[0, 1, 0, 1], [0, 1, 0, 1], [1, 0, 1, 0]])
        ladder_id = ladder.id
    ladder_listing(web.client(), "kozel", {"watched-a", "watched-b"})
    page: Page = browser.new_page(viewport={"width": 1200, "height": 860})
    page.goto(f"{web.base}/ladder/kozel")
    expect(page.locator("#ladder")).to_contain_text("watched-a")
    expect(page.locator("#elo-gap")).to_contain_text("76% of decisive games")
    status = page.locator("#ladder-status")
    assert status.get_attribute("role") == "status" and status.get_attribute("aria-live") == "polite"
    page.evaluate("window.notReloaded = true")  # gone if the page loads again

    with web.store.session() as session:
        third = add_bot(session, "kozel", "watched-c")[0]
        ladder = session.get_one(Tournament, ladder_id)
        add_match(session, ladder, [third, first, third, first], [[0, 1, 0, 1]] * 3)
    expect(page.locator("#ladder")).to_contain_text("watched-c", timeout=60_000)
    expect(status).to_contain_text("Updated")
    assert page.evaluate("window.notReloaded") is True
    page.close()
