"""Abuse over a real server: password guessing, telling users apart by timing, look-alike and reserved
names, security headers (and pages that still work under them), and web-started work that stays
within ``arena serve --workers``.

The server trusts ``X-Forwarded-For`` from 127.0.0.1 (uvicorn's default, as behind a local reverse
proxy): each test plays from addresses of its own, so that one test's locks leave the others be.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

from playwright.sync_api import Browser, ConsoleMessage, expect
from served import STARTER, Client, Reply, Web
from sqlalchemy import func, select

from arena.store.models import Match, MatchStatus, User
from arena.web import throttle
from arena.web.headers import HEADERS

PASSWORD = "correct horse battery"


def header(reply: Reply, name: str) -> str | None:
    return {key.lower(): value for key, value in reply.headers.items()}.get(name.lower())


def log_in(client: Client, name: str, password: str, address: str) -> Reply:
    fields = {"name": name, "password": password, "csrf": client.csrf("/login")}
    body = urllib.parse.urlencode(fields).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": address}
    return client.request("POST", "/login", body, headers)


def test_password_guessing_locks_the_account_and_the_address(web: Web) -> None:
    web.user("victim")
    client = web.client()
    started = time.monotonic()
    replies = [log_in(client, "victim", f"guess number {n}", "10.1.0.1") for n in range(40)]
    spent = time.monotonic() - started
    statuses = [reply.status for reply in replies]
    assert statuses == [401] * throttle.ACCOUNT_FAILURES + [429] * (40 - throttle.ACCOUNT_FAILURES)
    locked = replies[-1]
    assert 0 < int(header(locked, "Retry-After") or 0) <= throttle.FIRST_LOCK_S
    assert "too many failed log-ins" in locked.text
    # the right password now: refused too, from this address and from any other (the account is locked)
    assert log_in(client, "victim", PASSWORD, "10.1.0.1").status == 429
    assert log_in(client, "victim", PASSWORD, "10.1.0.2").status == 429
    assert "arena_session" not in {cookie.name for cookie in client.jar}
    # a refused attempt costs no password hash: the 35 refusals took little time
    assert spent < 30, spent

    # one address trying many names (real or not): locked after ADDRESS_FAILURES
    web.user("bystander")
    for n in range(throttle.ADDRESS_FAILURES):
        assert log_in(client, f"nobody-{n}", "some password", "10.1.0.3").status == 401
    reply = log_in(client, "bystander", PASSWORD, "10.1.0.3")
    assert reply.status == 429 and int(header(reply, "Retry-After") or 0) > 0
    assert log_in(client, "bystander", PASSWORD, "10.1.0.4").status == 303  # elsewhere: let in

    # API tokens: invalid ones count against their address, which is then refused even a valid one
    token = web.user("token-owner")

    def me(token: str, address: str) -> Reply:
        return Client(web.base, token).request("GET", "/api/v1/me", None, {"X-Forwarded-For": address})

    for n in range(throttle.ADDRESS_FAILURES):
        assert me(f"guessed-token-{n}", "10.1.0.5").status == 401
    refused = me(token, "10.1.0.5")
    assert refused.status == 429 and int(header(refused, "Retry-After") or 0) > 0
    assert "too many failed attempts" in refused.json()["error"]
    assert me(token, "10.1.0.6").json()["name"] == "token-owner"


def test_a_log_in_takes_as_long_whether_or_not_the_user_exists(web: Web) -> None:
    """Interleaved tries, each name tried ROUNDS times (under the account limit), each try from an
    address of its own (under the address limit); medians compared with generous slack. Before the
    fix a missing user was answered in a tenth of the time (no scrypt at all)."""
    rounds, names = 3, 8
    for n in range(names):
        web.user(f"timed-{n}")
    client = web.client()
    times: dict[bool, list[float]] = {True: [], False: []}
    attempt = 0
    for _ in range(rounds):
        for n in range(names):
            for exists in (True, False):
                name = f"timed-{n}" if exists else f"untimed-{n}"
                csrf = client.csrf("/login")  # not timed
                body = urllib.parse.urlencode({"name": name, "password": "not it at all", "csrf": csrf})
                attempt += 1
                headers = {
                    "Content-Type": "application/x-www-form-urlencoded",
                    "X-Forwarded-For": f"10.2.{attempt // 250}.{attempt % 250}",
                }
                started = time.perf_counter()
                reply = client.request("POST", "/login", body.encode(), headers)
                times[exists].append(time.perf_counter() - started)
                assert reply.status == 401 and "wrong user name or password" in reply.text
    existing, missing = statistics.median(times[True]), statistics.median(times[False])
    assert missing > 0.5 * existing, (existing, missing)
    assert existing > 0.5 * missing, (existing, missing)


def create_user_by_cli(web: Web, name: str) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "ARENA_DATABASE_URL"}
    env.update({"ARENA_HOME": str(web.home), "ARENA_API_TOKEN": web.admin_token})
    arena = str(Path(sys.executable).with_name("arena"))
    return subprocess.run(
        [arena, "user", "create", name], env=env, capture_output=True, text=True, timeout=60
    )


def test_reserved_and_look_alike_names_are_refused(web: Web) -> None:
    def sign_up(name: str) -> Reply:
        client = web.client()
        csrf = client.csrf("/signup")
        return client.post_form("/signup", {"name": name, "password": PASSWORD, "csrf": csrf})

    for reserved in ("builtin", "Admin", "r\u043e\u043et", "sys_tem"):  # the last two: Cyrillic o's, and _
        reply = sign_up(reserved)
        assert reply.status == 400 and "is reserved: choose another" in reply.text, reserved
    assert sign_up("alice").status == 200
    assert sign_up("ali\u200bce").status == 400  # an invisible character: not printable
    for alike in ("ALICE", "\u0430lice", "\uff41\uff4c\uff49\uff43\uff45", "a\u0301lice", "\u0391lice"):
        reply = sign_up(alike)
        assert reply.status == 400, alike
        assert "is too like the existing user &#39;alice&#39;: choose another" in reply.text, alike
    assert sign_up("alice").status == 400 and "user &#39;alice&#39; already exists" in sign_up("alice").text
    # the command line refuses them the same way
    refused = create_user_by_cli(web, "\u0430lice")
    assert refused.returncode != 0 and "too like the existing user 'alice'" in refused.stderr
    assert "is reserved" in create_user_by_cli(web, "Builtin").stderr  # even for an admin
    with web.store.session() as session:
        assert session.scalar(select(func.count()).select_from(User).where(User.name_key == "alice")) == 1
        assert session.scalar(select(User).where(User.name == "builtin")) is None

    # bot names: one game's bots have no look-alike names either, and none passes for a built-in
    ada, eve = web.client(web.user("bot-namer")), web.client(web.user("bot-copier"))
    code = ("bot.py", STARTER.read_bytes())
    assert (
        ada.post_multipart("/api/v1/bots", {"game": "edible", "name": "Starter"}, {"file": code}).status
        == 200
    )
    for name in ("starter", "\u0455tarter", "Builtin-random", "BUILTIN:random"):
        reply = eve.post_multipart("/api/v1/bots", {"game": "edible", "name": name}, {"file": code})
        assert reply.status == 400, (name, reply.text)
        error = reply.json()["error"]
        assert "too like the bot 'Starter'" in error or "does not start with 'builtin'" in error, error


PAGES = ["/", "/ladder/edible", "/tournaments", "/login", "/signup", "/api/docs", "/submit"]


def test_every_response_carries_the_security_headers(web: Web, browser: Browser) -> None:
    client = web.client()
    for path in [*PAGES, "/api/v1/games", "/static/style.css", "/no-such-page", "/api/v1/matches/999"]:
        reply = client.get(path)
        for name, value in HEADERS.items():
            assert header(reply, name) == value, (path, name, reply.headers)
    policy = HEADERS["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy

    # the pages work under the policy: nothing is refused, and the game picker (once an inline
    # handler) still sends its form
    web.user("csp-user")
    page = browser.new_page()
    violations: list[str] = []

    def seen(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Refused to" in message.text:
            violations.append(message.text)

    page.on("console", seen)
    page.goto(f"{web.base}/login")
    page.fill("input[name=name]", "csp-user")
    page.fill("input[name=password]", PASSWORD)
    page.click("#login-form button[type=submit]")
    expect(page.locator("nav .who")).to_have_text("csp-user")
    for path in [*PAGES, "/api/v1/games"]:
        page.goto(web.base + path)
    page.goto(f"{web.base}/tournaments?game=edible")
    page.select_option("select[name=game]", "kozel")
    page.wait_for_url("**/tournaments?game=kozel")
    page.close()
    assert not violations, violations


def test_web_started_tournaments_stay_within_the_workers(web: Web) -> None:
    """Six tournaments started on the web pages by three users, on a server of ``--workers 2``:
    never more than two matches play at once. A user's third unfinished tournament is refused."""
    spec = {"game": "edible", "bots": ["builtin:random", "builtin:heuristic"], "games_per_match": "10"}
    started: list[int] = []
    for n in range(3):
        client = web.client()
        web.user(f"busy-{n}")
        assert client.log_in(f"busy-{n}", PASSWORD).status == 303
        for _ in range(3):
            csrf = client.csrf("/tournaments")
            reply = client.post_form("/tournaments", {**spec, "rounds": "2", "csrf": csrf})
            if len(started) < 2 * (n + 1):
                assert reply.status == 303, reply.text
                started.append(int((header(reply, "location") or "").rsplit("/", 1)[1]))
            else:
                assert reply.status == 429, reply.text
                assert "unfinished tournaments, as many as a user may have at a time" in reply.text
    peak, samples = 0, 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak, samples
        while not stop.is_set():
            with web.store.session() as session:
                running = session.scalar(
                    select(func.count()).select_from(Match).where(Match.status == MatchStatus.RUNNING)
                )
            peak, samples = max(peak, running or 0), samples + 1
            time.sleep(0.02)

    watcher = threading.Thread(target=sample)
    watcher.start()
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            with web.store.session() as session:
                left = session.scalar(
                    select(func.count())
                    .select_from(Match)
                    .where(
                        Match.tournament_id.in_(started),
                        Match.status.in_([MatchStatus.PENDING, MatchStatus.RUNNING]),
                    )
                )
            if not left:
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the tournaments did not finish within 300 s")
    finally:
        stop.set()
        watcher.join()
    assert samples > 20
    assert 1 <= peak <= 2, peak
