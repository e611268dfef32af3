"""A real ``arena serve`` process on a random port over a temporary store, and an HTTP client for it
(the web tests' server, submissions and waits)."""

from __future__ import annotations

import http.cookiejar
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from services import free_port

from arena.store.db import Store
from arena.store.repo import create_user
from arena.web.security import set_password

ROOT = Path(__file__).resolve().parents[1]
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

    def post_form(self, path: str, fields: Mapping[str, str | Sequence[str]]) -> Reply:
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
