"""A real ``arena serve`` process on a random port over a temporary store, an HTTP client for it, and
headless Chromium."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright
from services import free_port
from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.store.db import Store
from arena.store.models import Bot, BotVersion, GameOutcome, Match, MatchStatus, SeatResult, Tournament, now
from arena.store.repo import create_user
from arena.web.security import set_password

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "sdk" / "examples" / "edible_starter.py"


@dataclass
class Reply:
    status: int
    body: bytes
    headers: dict[str, str]

    @property
    def text(self) -> str:
        return self.body.decode()

    def json(self) -> Any:
        return json.loads(self.body)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class Client:
    """A browser-like client: keeps cookies, does not follow redirects, never raises on 4xx/5xx."""

    base: str
    token: str | None = None
    jar: http.cookiejar.CookieJar = field(default_factory=http.cookiejar.CookieJar)

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> Reply:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), _NoRedirect)
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers or {})
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            with opener.open(request, timeout=60) as response:
                return Reply(response.status, response.read(), dict(response.headers))
        except urllib.error.HTTPError as error:
            return Reply(error.code, error.read(), dict(error.headers))

    def get(self, path: str) -> Reply:
        return self.request("GET", path)

    def post_form(self, path: str, fields: dict[str, str | list[str]]) -> Reply:
        pairs = [
            (k, v) for k, values in fields.items() for v in ([values] if isinstance(values, str) else values)
        ]
        body = urllib.parse.urlencode(pairs).encode()
        return self.request("POST", path, body, {"Content-Type": "application/x-www-form-urlencoded"})

    def post_json(self, path: str, data: Any) -> Reply:
        return self.request("POST", path, json.dumps(data).encode(), {"Content-Type": "application/json"})

    def post_multipart(self, path: str, fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> Reply:
        boundary = uuid.uuid4().hex
        parts = []
        for name, value in fields.items():
            parts.append(
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode()
            )
        for name, (filename, data) in files.items():
            head = (
                f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                "Content-Type: application/octet-stream\r\n\r\n"
            )
            parts.append(head.encode() + data + b"\r\n")
        body = b"".join(parts) + f"--{boundary}--\r\n".encode()
        return self.request("POST", path, body, {"Content-Type": f"multipart/form-data; boundary={boundary}"})

    def csrf(self, path: str) -> str:
        """The CSRF token of the form on ``path``."""
        match = re.search(r'name="csrf" value="([^"]+)"', self.get(path).text)
        assert match, f"no CSRF field on {path}"
        return match.group(1)

    def log_in(self, name: str, password: str) -> Reply:
        return self.post_form("/login", {"name": name, "password": password, "csrf": self.csrf("/login")})


@dataclass
class Web:
    base: str
    home: Path
    store: Store
    admin_token: str
    process: subprocess.Popen[bytes]

    def client(self, token: str | None = None) -> Client:
        return Client(self.base, token)

    def user(self, name: str, password: str = "correct horse battery") -> str:
        """A new user with a web password; returns its API token."""
        with self.store.session() as session:
            user, token = create_user(session, name)
            set_password(user, password)
        return token

    def signed_in_page(self, browser: Browser, name: str, password: str = "correct horse battery") -> Page:
        """A browser page signed in, through the log-in form, as a new user ``name``."""
        self.user(name, password)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{self.base}/login")
        page.fill("input[name=name]", name)
        page.fill("input[name=password]", password)
        page.click("#login-form button[type=submit]")
        expect(page.locator("nav .who")).to_have_text(name)
        return page


def start_server(
    home: Path, extra_env: dict[str, str] | None = None, args: Sequence[str] = ()
) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key != "ARENA_DATABASE_URL"}
    env.update({"ARENA_HOME": str(home), **(extra_env or {})})
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("arena")), "serve", "--port", str(port), "--workers", "2", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=open(home / "serve.log", "wb"),  # noqa: SIM115
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"arena serve exited: {(home / 'serve.log').read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=2) as response:
                if response.status == 200:
                    return process, base
        except OSError:
            time.sleep(0.1)
    process.kill()
    pytest.fail("arena serve did not answer within 60 s")


@contextmanager
def serving(home: Path, args: Sequence[str] = ()) -> Iterator[Web]:
    """``arena serve`` on the embedded default in ``home`` (with ``args``), stopped afterwards."""
    process, base = start_server(home, args=args)
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        yield Web(base, home, store, (home / "api-token").read_text().strip(), process)
    finally:
        process.terminate()
        process.wait(timeout=20)
        store.dispose()


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    with serving(tmp_path_factory.mktemp("arena-home")) as web:
        yield web


CHROMIUM = os.environ.get("ARENA_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.fail("no chromium: install Debian's package (apt-get install chromium) or set ARENA_CHROMIUM")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def submit_bot(
    client: Client, game: str, name: str, file: tuple[str, bytes], timeout: float = 300
) -> dict[str, Any]:
    """Submit over the API (answered at once, while it validates) and wait for the verdict: the
    version's line on the bot's API page."""
    reply = client.post_multipart("/api/v1/bots", {"game": game, "name": name}, {"file": file})
    assert reply.status == 200, reply.text
    return wait_for_validation(client, reply.json(), timeout)


def wait_for_validation(client: Client, submitted: dict[str, Any], timeout: float = 300) -> dict[str, Any]:
    """The submitted version's line on its bot's API page once its validation is over."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bot = client.get(f"/api/v1/bots/{submitted['bot_id']}").json()
        version: dict[str, Any] = next(v for v in bot["versions"] if v["id"] == submitted["version_id"])
        if version["validation"] != "validating":
            return {**submitted, **version, "bot_id": submitted["bot_id"]}
        time.sleep(0.25)
    pytest.fail(f"bot version {submitted['version_id']} was still validating after {timeout:.0f} s")


def wait_for_tournament(client: Client, tournament_id: int, timeout: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state: dict[str, Any] = client.get(f"/api/v1/tournaments/{tournament_id}").json()
        if state["finished"] == state["total"]:
            return state
        time.sleep(0.5)
    pytest.fail(f"tournament {tournament_id} did not finish within {timeout:.0f} s")


def add_bot(session: Session, game: str, name: str, versions: int = 1) -> list[int]:
    """A bot (built-in by owner, so that nothing schedules it) with ``versions`` validated versions;
    their ids, oldest first."""
    bot = Bot(game=game, name=name, owner_id=None)
    session.add(bot)
    session.flush()
    made = [BotVersion(bot_id=bot.id, spec=f"artifact:{name}-{n}", validated=True) for n in range(versions)]
    session.add_all(made)
    session.flush()
    return [version.id for version in made]


def add_tournament(session: Session, game: str, kind: str = "round_robin", rated: bool = True) -> Tournament:
    """A tournament of ``game``: rated (as an admin's, so its matches move the ladder), or not."""
    tournament = Tournament(
        game=game,
        game_version=get_game(game).version,
        config={},
        kind=kind,
        games_per_match=1,
        seed=1,
        rated=rated,
    )
    session.add(tournament)
    session.flush()
    return tournament


def add_match(
    session: Session,
    tournament: Tournament,
    entrants: list[int],
    games: list[list[int]],
    status: MatchStatus = MatchStatus.DONE,
) -> int:
    """A recorded match of these bot versions (in seat order; a kozel team's bot in both of its
    side's seats) played in the same seats every game, with each game's ranks per seat (0 the best),
    and each seat's totals; its id."""
    index = len(tournament.matches)
    match = Match(
        tournament_id=tournament.id,
        index=index,
        seed=index,
        entrants=entrants,
        status=status,
        finished_at=now(),
    )
    session.add(match)
    session.flush()
    for game_index, ranks in enumerate(games):
        session.add(
            GameOutcome(
                match_id=match.id,
                game=tournament.game,
                game_index=game_index,
                deal=game_index,
                seats=entrants,
                ranks=ranks,
                statuses=["ok"] * len(entrants),
            )
        )
    for agent, version in enumerate(entrants):
        places = [ranks[agent] for ranks in games]
        session.add(
            SeatResult(
                match_id=match.id,
                agent=agent,
                bot_version_id=version,
                games=len(games),
                wins=places.count(0),
                score=float(places.count(0)),
                mean_rank=sum(places) / len(places) if places else 0.0,
                statuses={"ok": len(games)},
            )
        )
    session.flush()
    session.expire(tournament, ["matches"])
    return match.id


def ladder_listing(client: Client, game: str, bots: set[str], timeout: float = 120) -> dict[str, Any]:
    """The game's ladder (its JSON) once it lists all of ``bots``: the server's scheduler takes the
    matches that land into the ladder of record."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ladder: dict[str, Any] = client.get(f"/api/v1/ladders/{game}").json()
        if bots <= {entry["bot"] for entry in ladder["entries"]}:
            return ladder
        time.sleep(0.2)
    pytest.fail(f"the {game} ladder did not list {sorted(bots)} within {timeout:.0f} s")


def head_to_head_games(session: Session) -> dict[str, int]:
    """Bots with a known record against each other; their ids by name.

    Edible: x, y (two versions, one bot), z, and w. Against y, x is ahead 2, behind 2, tied 1 (over
    y's two versions); against z, ahead 2, behind 1; w met x only in a voided match, which counts
    for nothing. Kozel (a bot holds both seats of its side): against b, a is ahead 1, behind 1,
    tied 1 (a drawn game); against c, ahead 1."""
    x, z, w = (add_bot(session, "edible", f"h2h-{name}")[0] for name in "xzw")
    y1, y2 = add_bot(session, "edible", "h2h-y", versions=2)
    edible = add_tournament(session, "edible")
    add_match(session, edible, [x, y1, z], [[0, 1, 1], [1, 0, 2], [2, 1, 0]])
    add_match(session, edible, [x, y2], [[0, 1], [0, 0]])
    add_match(session, edible, [x, w], [[0, 1]], MatchStatus.VOID)
    a, b, c = (add_bot(session, "kozel", f"h2h-{name}")[0] for name in "abc")
    kozel = add_tournament(session, "kozel", "team_round_robin")
    add_match(session, kozel, [a, b, a, b], [[0, 1, 0, 1], [1, 0, 1, 0], [0, 0, 0, 0]])
    add_match(session, kozel, [a, c, a, c], [[0, 1, 0, 1]])
    names = session.execute(select(Bot.name, Bot.id).where(Bot.name.like("h2h-%"))).all()
    return {name.removeprefix("h2h-"): bot_id for name, bot_id in names}
