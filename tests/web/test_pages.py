"""The pages for learning and for authors, and lists that scale: the rules pages, "write your first bot"
with its downloads, my bots (token and password too), the submit form on errors, the tournaments
list by pages, the ladder's search, the chart's dates; and, in Chromium at a phone's 390 px, every
page of the site without sideways scrolling and with a readable nav.

Screenshots of the new pages go to ``$ARENA_SCREENSHOTS`` (see test_browser.py)."""

from __future__ import annotations

import http.client
import io
import re
import zipfile
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute, iter_route_contexts
from playwright.sync_api import Browser, Page, ViewportSize, expect
from recorded import add_bot, add_match, add_tournament
from served import STARTER, Client, Web, ladder_listing
from sqlalchemy import func, select

from arena.ladder.standing import KIND as LADDER
from arena.store.models import Bot, BotVersion, Tournament, User
from arena.tournament import abtest
from arena.web import charts, learn, markdown
from arena.web.app import create_app
from arena.web.settings import Settings
from arena.web.views.bots import HistoryPoint, VersionInfo
from arena.web.views.tournaments import TOURNAMENTS_PAGE

PASSWORD = "correct horse battery"
GAMES = ("edible", "believe", "kozel")


def signed_in(web: Web, name: str) -> tuple[Client, str]:
    """A new user, logged in: its client and API token."""
    token = web.user(name, PASSWORD)
    client = web.client()
    assert client.log_in(name, PASSWORD).status == 303
    return client, token


def owned_bot(
    web: Web, owner: str, game: str, name: str, verdicts: list[bool | None]
) -> tuple[int, list[int]]:
    """A bot of ``owner`` whose versions (oldest first) passed (True), failed (False) or are still
    validating (None); a passed version plays as the built-in random bot, so the living ladder can
    rate it. Its id and its versions' ids."""
    with web.store.session() as session:
        user = session.scalar(select(User).where(User.name == owner))
        assert user is not None
        bot = Bot(game=game, name=name, owner_id=user.id)
        session.add(bot)
        session.flush()
        versions = [
            BotVersion(
                bot_id=bot.id,
                spec="builtin:random" if verdict else f"artifact:{name}-{n}",
                validated=bool(verdict),
                validating=verdict is None,
            )
            for n, verdict in enumerate(verdicts)
        ]
        session.add_all(versions)
        session.flush()
        return bot.id, [version.id for version in versions]


def error_of(html: str) -> str:
    found = re.search(r'<p class="error"[^>]*>([^<]*)', html)
    assert found, "no error shown"
    return found.group(1)


# ------------------------------------------------------------------ the Markdown of the rules pages


def test_markdown_renders_the_rules_subset_and_escapes_everything() -> None:
    html = markdown.render(
        "# Kozel (`kozel`)\n\nA *small* **game** with <script>alert(1)</script> & `<b>`.\n\n"
        "- one\n  goes on\n  - nested `x`\n- two\n\n1. first\n2. second\n\n"
        "| a | b |\n|---|---|\n| `1 | 2` | <i> |\n\n"
        "[site](/ladder/kozel) [web](https://example.org/?a=1&b=2) [bad](javascript:alert(1)) [data](data:x)"
    )
    assert '<h1 id="kozel-kozel">Kozel (<code>kozel</code>)</h1>' in html
    assert "<em>small</em> <strong>game</strong> with &lt;script&gt;alert(1)&lt;/script&gt; &amp;" in html
    assert "<code>&lt;b&gt;</code>" in html
    assert "<ul><li>one goes on<ul><li>nested <code>x</code></li></ul></li><li>two</li></ul>" in html
    assert "<ol><li>first</li><li>second</li></ol>" in html
    assert "<th>a</th><th>b</th>" in html and "<td>&lt;i&gt;</td>" in html
    assert '<a href="/ladder/kozel">site</a>' in html
    assert '<a href="https://example.org/?a=1&amp;b=2">web</a>' in html
    assert 'href="javascript' not in html and 'href="data' not in html
    assert "<script" not in html and "<i>" not in html


# ------------------------------------------------------------------ learn and start


def test_each_game_has_a_rules_page_linked_from_the_nav_and_the_games(web: Web) -> None:
    client = web.client()
    home = client.get("/").text
    assert 'href="/rules"' in home and 'href="/start"' in home
    index = client.get("/rules")
    assert index.status == 200
    for game in GAMES:
        assert f'href="/rules/{game}"' in home and f'href="/rules/{game}"' in index.text
        reply = client.get(f"/rules/{game}")
        assert reply.status == 200, reply.text
        assert re.search(r"<h1 id=\"[^\"]+\">", reply.text)
        assert "<table>" in reply.text and "<li>" in reply.text and "<code>" in reply.text
        assert "<script" not in reply.text.split("<article", 1)[1]
    assert "Place(cards, claim)" in client.get("/rules/believe").text
    missing = client.get("/rules/chess")
    assert missing.status == 404 and "no game" in missing.text


def test_the_first_bot_page_serves_the_starters(web: Web) -> None:
    client = web.client()
    page = client.get("/start")
    assert page.status == 200
    for link in ("/start/edible_starter.py", "/start/node.zip", "/start/go.zip", "/start/arena.proto"):
        assert f'href="{link}"' in page.text
    assert "bash deploy/setup.sh" in page.text
    assert "arena play edible edible_starter.py builtin:random" in page.text

    python = client.get("/start/edible_starter.py")
    assert python.status == 200 and python.body == STARTER.read_bytes()
    assert python.headers["content-disposition"] == 'attachment; filename="edible_starter.py"'

    for name in ("node", "go"):
        kit = learn.kit(name)
        assert kit is not None and kit.files
        reply = client.get(f"/start/{name}.zip")
        assert reply.status == 200 and reply.headers["content-type"] == "application/zip"
        archive = zipfile.ZipFile(io.BytesIO(reply.body))
        names = archive.namelist()
        top = f"{name}-starter/"
        assert sorted(names) == sorted([top + f.path for f in kit.files] + [top + "arena.proto"])
        assert top + "build.sh" in names
        assert not any(part in n for n in names for part in ("node_modules", "dist/", ".."))
        assert archive.read(top + "build.sh") == (kit.folder / "build.sh").read_bytes()
        assert archive.getinfo(top + "build.sh").external_attr >> 16 == 0o755
        shown = client.get(f"/start/{name}/{kit.files[0].path}")
        assert shown.status == 200 and shown.body == (kit.folder / kit.files[0].path).read_bytes()
        assert shown.headers["content-type"].startswith("text/plain")
        assert f'href="/start/{name}/{kit.files[0].path}"' in page.text
    for path in (
        "/start/node/../../../pyproject.toml",
        "/start/node/%2e%2e/%2e%2e/%2e%2e/pyproject.toml",
        "/start/node/node_modules/x.js",
        "/start/cobol.zip",
        "/start/go/nothing.go",
    ):
        assert client.get(path).status == 404, path


# ------------------------------------------------------------------ my bots


def test_my_bots_shows_versions_validation_and_rank(web: Web) -> None:
    assert web.client().get("/me").status == 303  # signed out: to the login page
    client, _ = signed_in(web, "mina")
    assert "No bots yet" in client.get("/me").text
    ranked, ranked_versions = owned_bot(web, "mina", "edible", "mina-ranked", [True])
    broken, _ = owned_bot(web, "mina", "edible", "mina-broken", [True, False])
    ladder_listing(client, "edible", {"mina-ranked", "mina-broken"})  # the living ladder played them
    page = client.get("/me").text
    assert 'id="validation-banner"' in page and "banner fail" in page
    banner = re.search(r'id="validation-banner">(.*?)</p>', page, re.S)
    assert banner and "failed" in banner.group(1) and "mina-broken" in banner.group(1)
    table = page.split('id="my-bots"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)[1:]
    assert [re.search(r">([^<]+)</a>", row).group(1) for row in rows] == ["mina-broken", "mina-ranked"]  # type: ignore[union-attr]
    assert f'href="/bots/{ranked}"' in rows[1] and f'href="/bots/{broken}"' in rows[0]
    assert ">passed<" in rows[1] and ">failed<" in rows[0]
    assert str(ranked_versions[0]) in rows[1]
    rank = re.findall(r'<td class="num">(\d+)</td>', rows[1])
    assert rank, rows[1]  # its place on the edible ladder

    # only passed versions: the banner says so
    other, _ = signed_in(web, "nico")
    owned_bot(web, "nico", "believe", "nico-fine", [True])
    assert "banner pass" in other.get("/me").text


def test_a_new_api_token_is_shown_once_and_needs_the_forms_csrf(web: Web) -> None:
    client, token = signed_in(web, "otto")
    assert web.client(token).get("/api/v1/me").status == 200
    refused = client.post_form("/me/token", {})
    assert refused.status == 403 and "CSRF" in refused.text
    refused = client.post_form("/me/token", {"csrf": "not-the-token"})
    assert refused.status == 403
    assert web.client(token).get("/api/v1/me").status == 200  # unchanged
    reply = client.post_form("/me/token", {"csrf": client.csrf("/me")})
    assert reply.status == 200
    new = re.search(r'<pre class="token" id="api-token">([^<]+)</pre>', reply.text)
    assert new and new.group(1) != token
    assert web.client(token).get("/api/v1/me").status == 401  # the old one stops at once
    assert web.client(new.group(1)).get("/api/v1/me").json()["name"] == "otto"
    assert new.group(1) not in client.get("/me").text  # shown once


def test_a_password_change_needs_the_current_password_and_the_csrf(web: Web) -> None:
    client, _ = signed_in(web, "pia")
    elsewhere = web.client()
    assert elsewhere.log_in("pia", PASSWORD).status == 303
    csrf = client.csrf("/me")
    new = "a brand new password"
    assert client.post_form("/me/password", {"current": PASSWORD, "new": new}).status == 403
    wrong = client.post_form("/me/password", {"csrf": csrf, "current": "not it", "new": new})
    assert wrong.status == 400 and error_of(wrong.text) == "the current password is wrong"
    short = client.post_form("/me/password", {"csrf": csrf, "current": PASSWORD, "new": "short"})
    assert short.status == 400 and "at least 8 characters" in error_of(short.text)
    assert web.client().log_in("pia", PASSWORD).status == 303  # still the old password
    done = client.post_form("/me/password", {"csrf": csrf, "current": PASSWORD, "new": new})
    assert done.status == 200 and 'id="password-changed"' in done.text
    assert client.get("/me").status == 200  # this session goes on
    assert elsewhere.get("/me").status == 303  # the others ended
    assert web.client().log_in("pia", PASSWORD).status == 401
    assert web.client().log_in("pia", new).status == 303


# ------------------------------------------------------------------ the submit form on errors


def test_the_submit_form_keeps_what_was_entered_on_errors(web: Web) -> None:
    client, _ = signed_in(web, "quinn")
    csrf = client.csrf("/submit")

    def submit(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[int, str, str]:
        reply = client.post_multipart("/submit", {"csrf": csrf, **fields}, files)
        assert reply.headers["content-type"].startswith("text/html"), reply.text
        return reply.status, reply.text, error_of(reply.text)

    fields = {"game": "kozel", "name": "quinn-bot", "entry": "main.py"}
    status, html, error = submit(fields, {"file": ("bot.txt", b"hello")})
    assert status == 400 and "submit a .py file or a .zip" in error
    assert '<option value="kozel" selected>' in html
    assert 'value="quinn-bot"' in html and 'value="main.py"' in html
    status, html, error = submit(fields, {"file": ("bot.zip", b"not a zip")})
    assert status == 400 and "zip" in error and 'value="quinn-bot"' in html
    status, html, error = submit({**fields, "game": "chess"}, {"file": ("bot.py", b"print(1)\n")})
    assert status == 400 and "no game 'chess'" in error.replace("&#39;", "'")
    assert 'value="quinn-bot"' in html
    status, html, error = submit({**fields, "name": "  "}, {"file": ("bot.py", b"print(1)\n")})
    assert status == 400 and "name" in error and '<option value="kozel" selected>' in html
    status, html, error = submit(fields, {})
    assert status == 400 and "choose a .py file" in error and 'value="quinn-bot"' in html

    # a body over the limit is refused before it is read: a page, not JSON
    host, port = web.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.putrequest("POST", "/submit")
    connection.putheader("Content-Type", "multipart/form-data; boundary=x")
    connection.putheader("Content-Length", str(50 * 1024 * 1024))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413 and response.getheader("content-type", "").startswith("text/html")
    assert "larger than the limit" in response.read().decode()
    connection.close()

    # and a good one still goes through
    reply = client.post_multipart(
        "/submit", {"csrf": csrf, **fields, "entry": ""}, {"file": ("bot.py", STARTER.read_bytes())}
    )
    assert reply.status == 303, error_of(reply.text) and reply.headers["location"].startswith("/bots/")


# ------------------------------------------------------------------ lists that scale


def test_the_tournaments_list_comes_page_by_page(web: Web) -> None:
    with web.store.session() as session:
        for _ in range(2 * TOURNAMENTS_PAGE + 1):
            add_tournament(session, "believe")
    with web.store.session() as session:
        ids = list(
            session.scalars(
                select(Tournament.id).where(Tournament.kind != LADDER).order_by(Tournament.id.desc())
            )
        )
        count = session.scalar(select(func.count()).select_from(Tournament).where(Tournament.kind != LADDER))
    pages = -(-len(ids) // TOURNAMENTS_PAGE)
    assert count == len(ids) and pages >= 3
    client = web.client()
    for number in (1, 2, pages):
        html = client.get(f"/tournaments?page={number}").text
        table = html.split('id="tournament-list"', 1)[1].split("</table>", 1)[0]
        shown = [int(n) for n in re.findall(r'<a href="/tournaments/(\d+)">', table)]
        assert shown == ids[(number - 1) * TOURNAMENTS_PAGE : number * TOURNAMENTS_PAGE]
        assert f"Page {number} of {pages}" in html
        if number < pages:
            assert f'href="?page={number + 1}#all"' in html
        if number > 1:
            assert f'href="?page={number - 1}#all"' in html
    assert client.get(f"/tournaments?page={pages + 1}").status == 404
    assert client.get("/tournaments?page=0").status == 422


def test_a_tournaments_standings_link_to_the_bots_pages(web: Web) -> None:
    with web.store.session() as session:
        first, second = (add_bot(session, "edible", name)[0] for name in ("linked-a", "linked-b"))
        tournament = add_tournament(session, "edible")
        add_match(session, tournament, [first, second], [[0, 1], [1, 0], [0, 1]])
        tournament_id = tournament.id
        bots = dict(session.execute(select(Bot.name, Bot.id).where(Bot.name.like("linked-%"))).all())
    html = web.client().get(f"/tournaments/{tournament_id}").text
    standings = html.split('id="standings"', 1)[1].split("</table>", 1)[0]
    for name, bot_id in bots.items():
        assert f'<a href="/bots/{bot_id}">{name}</a>' in standings


def test_the_ladder_page_finds_bots_by_name(web: Web) -> None:
    with web.store.session() as session:
        versions = [add_bot(session, "kozel", name)[0] for name in ("seek-Alpha", "seek-beta", "other-alpha")]
        ladder = add_tournament(session, "kozel", LADDER)
        a, b, c = versions
        add_match(session, ladder, [a, b, a, b], [[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
        add_match(session, ladder, [c, a, c, a], [[0, 1, 0, 1]])
    client = web.client()
    ladder_listing(client, "kozel", {"seek-Alpha", "seek-beta", "other-alpha"})
    page = client.get("/ladder/kozel?q=ALPHA").text
    assert 'id="ladder-search"' in page and 'name="q" value="ALPHA"' in page
    table = page.split('id="ladder-body"', 1)[1]
    assert "seek-Alpha" in table and "other-alpha" in table and "seek-beta" not in table
    assert "2 bots whose name holds" in table
    fragment = client.get("/ladder/kozel/table?q=seek-b").text
    assert "seek-beta" in fragment and "seek-Alpha" not in fragment
    nothing = client.get("/ladder/kozel?q=%3Cscript%3E").text
    assert "No bot on the ladder has “&lt;script&gt;” in its name" in nothing
    assert "seek-beta" in client.get("/ladder/kozel").text  # the whole ladder again
    assert client.get(f"/ladder/kozel?q={'x' * 65}").status == 422


def test_the_rating_chart_marks_dates_on_its_axis() -> None:
    start = datetime(2025, 3, 1, 12, 0)
    version = VersionInfo(
        id=1, spec="x", entry="", validation="passed", created_at=start, rating=None, validation_log=None
    )

    def points(step: timedelta, count: int) -> list[HistoryPoint]:
        return [
            HistoryPoint(
                version_id=1,
                kind="live",
                elo=1500 + k,
                halfwidth=None,
                games=k,
                match_id=k,
                at=start + k * step,
            )
            for k in range(count)
        ]

    days = charts.rating_history(points(timedelta(days=1), 20), [version])
    labels = re.findall(r'<text class="date"[^>]*><title>([^<]+)</title>([^<]+)</text>', days)
    assert [label for _, label in labels] == ["01 Mar", "06 Mar", "11 Mar", "15 Mar", "20 Mar"]
    assert labels[0][0] == "2025-03-01 12:00 UTC"

    def marks(step: timedelta, count: int) -> list[str]:
        chart = charts.rating_history(points(step, count), [version])
        return re.findall(r'<text class="date"[^>]*><title>[^<]+</title>([^<]+)</text>', chart)

    assert marks(timedelta(minutes=30), 3) == ["01 Mar 12:00", "12:30", "13:00"]
    assert marks(timedelta(minutes=5), 3) == ["01 Mar 12:00:00", "12:05:00", "12:10:00"]
    assert marks(timedelta(hours=8), 3) == ["01 Mar 12:00", "01 Mar 20:00", "02 Mar 04:00"]
    assert marks(timedelta(seconds=0), 4) == ["01 Mar 12:00:00", "12:00:00"]  # no label twice


# ------------------------------------------------------------------ every page on a phone

PHONE: ViewportSize = {"width": 390, "height": 844}


def page_routes(folder: Path) -> list[str]:
    """The app's pages: its GET routes that answer HTML and are not the API's."""
    app = create_app(Settings(f"sqlite:///{folder / 'routes.db'}", folder))
    routes = [
        route.path
        for route in (context.original_route for context in iter_route_contexts(app.routes))
        if isinstance(route, APIRoute)
        and "GET" in (route.methods or ())
        and route.response_class is HTMLResponse
        and not route.path.startswith("/api/v1")
    ]
    return sorted(set(routes))


def fits_the_phone(page: Page, url: str) -> None:
    """No sideways scrolling, and a nav whose links are all on screen, apart and readable."""
    reply = page.goto(url)
    assert reply is not None and reply.status < 400, f"{url}: {reply and reply.status}"
    page.wait_for_load_state("load")
    widths = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], f"{url} scrolls sideways: {widths[0]} px wide in {widths[1]}"
    boxes: list[dict[str, Any]] = page.evaluate(
        """() => [...document.querySelectorAll('header nav a, header nav button, header nav .who')].map(e => {
            const r = e.getBoundingClientRect();
            return {text: e.textContent.trim(), left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                    size: parseFloat(getComputedStyle(e).fontSize), visible: r.width > 0 && r.height > 0};
        })"""
    )
    assert len(boxes) >= 8, url
    for box in boxes:
        assert box["visible"] and box["left"] >= 0 and box["right"] <= widths[1], f"{url}: nav {box}"
        assert box["size"] >= 13, f"{url}: nav text too small: {box}"
    for i, one in enumerate(boxes):
        for other in boxes[i + 1 :]:
            apart = (
                one["right"] <= other["left"]
                or other["right"] <= one["left"]
                or one["bottom"] <= other["top"]
                or other["bottom"] <= one["top"]
            )
            assert apart, f"{url}: nav items overlap: {one} {other}"


def test_every_page_fits_a_phone(web: Web, browser: Browser, shots: Path, tmp_path: Path) -> None:
    token = web.user("phoebe", PASSWORD)
    api = web.client(token)
    submitted = api.post_multipart(
        "/api/v1/bots",
        {"game": "edible", "name": "phoebe-starter-with-a-rather-long-name"},
        {"file": ("edible_starter.py", STARTER.read_bytes())},
    ).json()
    bot_id, _ = owned_bot(web, "phoebe", "edible", "phoebe-random", [True, False])
    with web.store.session() as session:
        x, y = (add_bot(session, "edible", name)[0] for name in ("phone-x", "phone-y"))
        tournament = add_tournament(session, "edible")
        match_id = add_match(session, tournament, [x, y], [[0, 1], [1, 0]])
        tournament_id = tournament.id
        one_match = abtest.TestSpec(
            "edible", "builtin:random", "builtin:heuristic", max_games=2, games_per_match=2
        )
        test_id = abtest.create(session, one_match, None).id
    examples = {
        "/": ["/"],
        "/ladder/{game}": [f"/ladder/{game}" for game in GAMES] + ["/ladder/edible?q=phoebe"],
        "/bots/{bot_id}": [f"/bots/{bot_id}", f"/bots/{submitted['bot_id']}"],
        "/versions/{version_id}/source": [f"/versions/{submitted['version_id']}/source"],
        "/matches/{match_id}": [f"/matches/{match_id}"],
        "/tournaments": ["/tournaments", "/tournaments?page=2"],
        "/tournaments/{tournament_id}": [f"/tournaments/{tournament_id}"],
        "/submit": ["/submit"],
        "/login": ["/login"],
        "/signup": ["/signup"],
        "/rules": ["/rules"],
        "/rules/{game}": [f"/rules/{game}" for game in GAMES],
        "/start": ["/start"],
        "/me": ["/me"],
        "/api/docs": ["/api/docs"],
        "/play": ["/play", "/play?game=kozel"],
        "/play/{match_id}": [f"/play/{match_id}"],  # over: its match page (the table: tests/web/test_play.py)
        "/abtests/{test_id}": [f"/abtests/{test_id}"],
    }
    fragments = {"/ladder/{game}/table"}  # a part of the ladder page, fetched by its script
    routes = page_routes(tmp_path)
    assert set(routes) - fragments == set(examples), "a page without an example here: add one"
    with web.store.session() as session:
        many = session.scalar(select(func.count()).select_from(Tournament).where(Tournament.kind != LADDER))
    if (many or 0) <= TOURNAMENTS_PAGE:
        examples["/tournaments"].remove("/tournaments?page=2")

    context = browser.new_context(viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    for path in ("/", "/login", "/signup", "/rules/kozel", "/start"):  # signed out
        fits_the_phone(page, web.base + path)
    page.goto(f"{web.base}/login")
    page.fill("input[name=name]", "phoebe")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("nav .who")).to_have_text("phoebe")
    for urls in examples.values():
        for path in urls:
            fits_the_phone(page, web.base + path)
    for name, path in (
        ("phone-ladder", "/ladder/edible"),
        ("phone-me", "/me"),
        ("phone-rules", "/rules/believe"),
    ):
        page.goto(web.base + path)
        page.screenshot(path=shots / f"{name}.png", full_page=False)
    context.close()


def test_the_new_pages_in_a_browser(web: Web, browser: Browser, shots: Path) -> None:
    """The rules, first-bot and my-bots pages on a desktop, with a token made and the ladder searched."""
    token = web.user("rosa", PASSWORD)
    owned_bot(web, "rosa", "edible", "rosa-random", [True])
    owned_bot(web, "rosa", "edible", "rosa-broken", [True, False])
    ladder_listing(web.client(token), "edible", {"rosa-random"})
    page: Page = browser.new_page(viewport={"width": 1200, "height": 860})
    page.goto(f"{web.base}/login?next=/me")
    page.fill("input[name=name]", "rosa")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("h1")).to_contain_text("My bots")
    expect(page.locator("#validation-banner")).to_contain_text("rosa-broken")
    page.click("#token-form button[type=submit]")
    expect(page.locator("#api-token")).to_have_text(re.compile(r"^\S{30,}$"))
    page.screenshot(path=shots / "me.png", full_page=True)

    page.click("nav a[href='/rules']")
    page.click("#rules-games a[href='/rules/edible']")
    expect(page.locator("#rules h1")).to_contain_text("Edible")
    page.screenshot(path=shots / "rules.png")
    page.click("nav a[href='/start']")
    expect(page.locator("h1")).to_have_text("Write your first bot")
    with page.expect_download() as download:
        page.click("#python-starter")
    assert Path(download.value.path()).read_bytes() == STARTER.read_bytes()
    page.screenshot(path=shots / "start.png", full_page=True)

    page.goto(f"{web.base}/ladder/edible")
    page.fill("#ladder-search input[name=q]", "rosa")
    page.click("#ladder-search button[type=submit]")
    expect(page.locator("#ladder-search-result")).to_contain_text("whose name holds “rosa”")
    expect(page.locator("#ladder-body")).to_contain_text("rosa-random")
    page.goto(f"{web.base}/tournaments")
    page.screenshot(path=shots / "tournaments.png")
    page.close()
