"""The JSON API and the pages over a real server: errors, privacy, CSRF, admin actions, limits."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest
from served import STARTER, Web, submit_bot, wait_for_tournament

from arena.store.models import Bot, BotVersion, LadderState, Rating
from arena.submissions import SubmissionLimits


def test_openapi_documents_every_api_route(web: Web) -> None:
    spec = web.client().get("/api/openapi.json").json()
    paths = set(spec["paths"])
    for path in (
        "/api/v1/games",
        "/api/v1/ladders/{game}",
        "/api/v1/ladders/{game}/revision",
        "/api/v1/ladders/{game}/refit",
        "/api/v1/bots",
        "/api/v1/bots/{bot_id}",
        "/api/v1/versions/{version_id}/source",
        "/api/v1/matches/{match_id}",
        "/api/v1/matches/{match_id}/replay/{game_index}",
        "/api/v1/matches/{match_id}/logs/{agent}",
        "/api/v1/tournaments",
        "/api/v1/tournaments/{tournament_id}",
        "/api/v1/me",
    ):
        assert path in paths, path
    assert not any(path.startswith(("/ladder", "/bots", "/login")) for path in paths), "pages are not API"
    docs = web.client().get("/api/docs").text  # rendered here from the spec, no outside assets
    assert "GET /api/v1/ladders/{game}" in docs and "LadderEntry" in docs and "cdn" not in docs.lower()
    ladder = spec["components"]["schemas"]["LadderEntry"]["properties"]
    assert {"rank", "bot", "owner", "elo", "halfwidth", "games", "provisional", "connected"} <= set(ladder)


def test_bad_requests_get_clear_errors_and_the_server_keeps_running(web: Web) -> None:
    client = web.client()
    reply = client.get("/api/v1/ladders/chess")
    assert reply.status == 404 and "no game 'chess'" in reply.json()["error"]
    reply = client.get("/api/v1/matches/abc")
    assert reply.status == 422 and "match_id" in reply.json()["error"]
    assert client.get("/api/v1/matches/999999").json() == {"error": "no match 999999"}
    reply = client.get("/ladder/edible?page=99")
    assert reply.status == 404 and "page(s), not 99" in reply.text
    assert client.get("/ladder/edible?page=0").status == 422
    page = client.get("/bots/424242")
    assert page.status == 404 and "no bot 424242" in page.text and "<html" in page.text
    reply = client.post_json("/api/v1/tournaments", {"game": "edible", "bots": ["builtin:random"] * 2})
    assert reply.status == 401 and "Bearer" in reply.json()["error"]
    admin = web.client(web.admin_token)
    reply = admin.post_json("/api/v1/tournaments", {"game": "edible", "bots": ["builtin:random"]})
    assert reply.status == 400 and "at least two bots" in reply.json()["error"]
    reply = admin.post_json(
        "/api/v1/tournaments", {"game": "edible", "bots": ["builtin:random", "builtin:nope"]}
    )
    assert reply.status == 400 and "builtin:nope" in reply.json()["error"]
    # The game's own config check runs at creation, not when the first match fails.
    bots = ["builtin:random", "builtin:heuristic"]
    reply = admin.post_json(
        "/api/v1/tournaments", {"game": "edible", "bots": bots, "config": {"action_cap": -5}}
    )
    assert reply.status == 400 and "action_cap must be at least 1" in reply.json()["error"]
    reply = admin.post_json("/api/v1/tournaments", {"game": "edible", "bots": "x", "games_per_match": "many"})
    assert reply.status == 422 and "games_per_match" in reply.json()["error"]
    reply = admin.request("POST", "/api/v1/tournaments", b"{not json", {"Content-Type": "application/json"})
    assert reply.status == 422
    reply = web.client("wrong-token").get("/api/v1/me")
    assert reply.status == 401 and "not valid" in reply.json()["error"]
    assert client.get("/healthz").status == 200


def test_uploads_over_the_size_limit_are_refused_and_nothing_is_stored(web: Web) -> None:
    token = web.user("big")
    client = web.client(token)
    # the declared length is over the limit: refused before a byte of the body is read
    host, port = web.base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    connection.putrequest("POST", "/api/v1/bots")
    connection.putheader("Authorization", f"Bearer {token}")
    connection.putheader("Content-Type", "multipart/form-data; boundary=x")
    connection.putheader("Content-Length", str(50 * 1024 * 1024))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 413 and "limit" in json.loads(response.read())["error"]
    connection.close()
    # no declared length (chunked): refused once the bytes read pass the limit
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    head = (
        b'--x\r\nContent-Disposition: form-data; name="file"; filename="bot.py"\r\n'
        b"Content-Type: text/x-python\r\n\r\n"
    )
    over = SubmissionLimits().max_total_bytes // 65536 + 8  # chunks of 64 KiB past the limit
    chunks = iter([head, *(b"#" * 65536 for _ in range(over)), b"\r\n--x--\r\n"])
    connection.request(
        "POST",
        "/api/v1/bots",
        body=chunks,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "multipart/form-data; boundary=x"},
        encode_chunked=True,
    )
    response = connection.getresponse()
    assert response.status == 413 and "limit" in json.loads(response.read())["error"]
    connection.close()
    reply = client.post_multipart(
        "/api/v1/bots", {"game": "edible", "name": "x"}, {"file": ("bot.exe", b"MZ")}
    )
    assert reply.status == 400 and "submit a .py file or a .zip" in reply.json()["error"]
    assert client.get("/api/v1/me").json()["bots"] == []
    assert client.get("/healthz").status == 200


def test_logs_and_sources_are_visible_to_their_owner_only(web: Web) -> None:
    ada_token, bob_token = web.user("ada"), web.user("bob")
    ada, bob, anonymous = web.client(ada_token), web.client(bob_token), web.client()
    submitted = submit_bot(ada, "edible", "starter", ("bot.py", STARTER.read_bytes()))
    assert submitted["validation"] == "passed", submitted["validation_log"]
    version = submitted["version_id"]
    created = ada.post_json(
        "/api/v1/tournaments", {"game": "edible", "bots": ["starter", "builtin:random"], "games_per_match": 4}
    ).json()
    state = wait_for_tournament(ada, created["id"])
    match_id = state["matches"][0]["id"]
    seat = next(
        s["agent"] for s in ada.get(f"/api/v1/matches/{match_id}").json()["seats"] if s["bot"] == "starter"
    )

    # the replay: the whole state at every step (the match is over), and what one seat saw
    whole = anonymous.get(f"/api/v1/matches/{match_id}/replay/0").json()
    assert whole["steps"][0]["number"] == -1 and "hands" in whole["steps"][0]["state"]
    assert all(step["observation"] is None for step in whole["steps"])
    seen = anonymous.get(f"/api/v1/matches/{match_id}/replay/0?seat=1").json()
    assert [step["state"] for step in seen["steps"]] == [step["state"] for step in whole["steps"]]
    assert all(
        step["observation"]["seat"] == 1 and "hands" not in step["observation"] for step in seen["steps"]
    )
    reply = anonymous.get(f"/api/v1/matches/{match_id}/replay/0?seat=7")
    assert reply.status == 404 and "has seats 0..1" in reply.json()["error"]
    assert anonymous.get(f"/api/v1/matches/{match_id}/replay/99").status == 404

    source = ada.get(f"/api/v1/versions/{version}/source").json()
    assert [(f["name"], f["text"]) for f in source["files"]] == [("bot.py", STARTER.read_text())]
    assert ada.get(f"/api/v1/matches/{match_id}/logs/{seat}").status == 200
    for other in (bob, anonymous):
        reply = other.get(f"/api/v1/versions/{version}/source")
        assert reply.status == 403 and "owner" in reply.json()["error"]
        reply = other.get(f"/api/v1/matches/{match_id}/logs/{seat}")
        assert reply.status == 403 and "owner" in reply.json()["error"]
        assert other.get(f"/matches/{match_id}/logs/{seat}").status == 403
        assert other.get(f"/versions/{version}/source").status == 403
        bot = other.get(f"/api/v1/bots/{submitted['bot_id']}").json()
        assert not bot["is_private_visible"] and all(v["validation_log"] is None for v in bot["versions"])
        assert not any(s["log_visible"] for s in other.get(f"/api/v1/matches/{match_id}").json()["seats"])
    # the pages: bob sees the bot and the match but no log or source links
    bob.log_in("bob", "correct horse battery")
    page = bob.get(f"/matches/{match_id}").text
    assert "starter" in page and f"/matches/{match_id}/logs/" not in page
    assert "/source" not in bob.get(f"/bots/{submitted['bot_id']}").text
    ada.log_in("ada", "correct horse battery")
    assert f"/matches/{match_id}/logs/{seat}" in ada.get(f"/matches/{match_id}").text
    assert ada.get(f"/matches/{match_id}/logs/{seat}").status == 200
    assert f"/matches/{match_id}/logs/{seat}" in ada.get(f"/bots/{submitted['bot_id']}").text
    assert "/logs/" not in bob.get(f"/bots/{submitted['bot_id']}").text
    # the bot's name belongs to ada
    bob.token = None
    reply = bob.post_multipart(
        "/api/v1/bots", {"game": "edible", "name": "starter"}, {"file": ("bot.py", STARTER.read_bytes())}
    )
    assert reply.status == 401  # the cookie session is not enough for API writes
    bob.token = bob_token
    reply = bob.post_multipart(
        "/api/v1/bots", {"game": "edible", "name": "starter"}, {"file": ("bot.py", STARTER.read_bytes())}
    )
    assert reply.status == 400 and "taken by another user" in reply.json()["error"]


def test_forms_need_their_csrf_token_and_admin_actions_need_an_admin(web: Web) -> None:
    web.user("carol")
    carol = web.client()
    reply = carol.post_form(
        "/login", {"name": "carol", "password": "correct horse battery", "csrf": "forged"}
    )
    assert reply.status == 403 and "CSRF" in reply.text
    reply = carol.log_in("carol", "wrong password!")
    assert reply.status == 401 and "wrong user name or password" in reply.text
    for outside in ("https://evil.example/", "//evil.example/", "/\\evil.example/"):
        fields_in = {"name": "carol", "password": "correct horse battery", "next": outside}
        reply = carol.post_form("/login", {**fields_in, "csrf": carol.csrf("/login")})
        assert reply.status == 303 and reply.headers["location"] == "/", outside  # never off the site
    reply = carol.log_in("carol", "correct horse battery")
    assert reply.status == 303
    fields: dict[str, str | list[str]] = {"game": "edible", "bots": ["builtin:random", "builtin:heuristic"]}
    reply = carol.post_form("/tournaments", fields)
    assert reply.status == 403 and "CSRF" in reply.text
    reply = carol.post_form("/tournaments", {**fields, "csrf": "not-the-token"})
    assert reply.status == 403
    before = len(carol.get("/api/v1/tournaments").json())
    assert len(carol.get("/api/v1/tournaments").json()) == before  # nothing was created
    reply = carol.post_form("/ladder/edible/refit", {"csrf": carol.csrf("/tournaments")})
    assert reply.status == 403 and "admin" in reply.text
    carol_token = web.user("carol2")
    reply = web.client(carol_token).post_json("/api/v1/ladders/edible/refit", {})
    assert reply.status == 403 and "admin" in reply.json()["error"]
    reply = web.client(web.admin_token).post_json("/api/v1/ladders/edible/refit", {})
    assert reply.status == 200 and reply.json()["game"] == "edible"
    reply = carol.post_form(
        "/tournaments", {**fields, "csrf": carol.csrf("/tournaments"), "games_per_match": "2"}
    )
    assert reply.status == 303 and reply.headers["location"].startswith("/tournaments/")
    reply = carol.post_form("/logout", {"csrf": carol.csrf("/tournaments")})
    assert reply.status == 303
    assert "Log in" in carol.get("/").text


def test_the_local_admin_gets_a_web_password_from_the_cli_and_sees_admin_actions(web: Web) -> None:
    arena = Path(sys.executable).with_name("arena")
    env = {**os.environ, "ARENA_HOME": str(web.home), "ARENA_PASSWORD": "admin password 1"}
    env.pop("ARENA_DATABASE_URL", None)
    done = subprocess.run([arena, "user", "password", "local"], env=env, capture_output=True, text=True)
    assert done.returncode == 0 and "web password of local set" in done.stdout, done.stderr
    short = subprocess.run(
        [arena, "user", "password", "local"],
        env={**env, "ARENA_PASSWORD": "short"},
        capture_output=True,
        text=True,
    )
    assert short.returncode == 2 and "at least 8 characters" in short.stderr
    admin = web.client()
    assert admin.log_in("local", "admin password 1").status == 303
    page = admin.get("/ladder/edible").text
    assert "Refit now" in page
    reply = admin.post_form("/ladder/edible/refit", {"csrf": admin.csrf("/ladder/edible")})
    assert reply.status == 303
    assert "Refit now" not in web.client().get("/ladder/edible").text


def test_many_requests_at_once_on_a_fresh_ladder_all_get_answers(web: Web) -> None:
    """Bot pages and the signed-in ladder page read the ladder, built afresh when its revision moves,
    with the request's own session. (Built with a second one, requests arriving together on a long
    ladder each held a connection while waiting for another: the pool of 15 ran dry, and every one
    of them failed after 30 s.)"""
    with web.store.session() as session:
        bots = [Bot(game="believe", name=f"crowd{number}") for number in range(1500)]
        session.add_all(bots)
        session.flush()
        versions = [BotVersion(bot_id=bot.id, spec="builtin:random", validated=True) for bot in bots]
        session.add_all(versions)
        session.flush()
        session.add_all(
            Rating(bot_version_id=version.id, game="believe", live_elo=1500.0 + number, live_games=10)
            for number, version in enumerate(versions)
        )
        state = session.get(LadderState, "believe") or LadderState(game="believe")
        state.revision = (state.revision or 0) + 1  # a new revision: the next reader builds the ladder
        session.add(state)
        bot_id = bots[-1].id
    web.user("dora")
    dora = web.client()
    assert dora.log_in("dora", "correct horse battery").status == 303
    cookie = "; ".join(f"{c.name}={c.value}" for c in dora.jar)
    requests: list[tuple[str, str, dict[str, str], bytes]] = [
        ("GET", f"/bots/{bot_id}", {}, b""),
        ("GET", f"/api/v1/bots/{bot_id}", {}, b""),
    ] * 12
    requests += [("GET", "/ladder/believe", {"Cookie": cookie}, b"")] * 4
    replies = all_at_once(web, requests)
    assert [status for status, _ in replies] == [200] * len(requests), replies[0][1][-500:]
    assert all("crowd1499" in text for _, text in replies)  # the top of the ladder, and the bot


def test_tournaments_created_many_at_once_all_start(web: Web) -> None:
    """Creating a tournament ends the request's transaction before it opens sessions of its own
    (the same trap as above: 16 at once held 16 connections while waiting for more)."""
    body = json.dumps(
        {"game": "edible", "bots": ["builtin:random", "builtin:heuristic"], "games_per_match": 1}
    )
    headers = {"Authorization": f"Bearer {web.admin_token}", "Content-Type": "application/json"}
    replies = all_at_once(web, [("POST", "/api/v1/tournaments", headers, body.encode())] * 16)
    assert [status for status, _ in replies] == [200] * 16, replies[0][1][-500:]
    created = {json.loads(text)["id"] for _, text in replies}
    assert len(created) == 16
    client = web.client()
    for tournament_id in created:
        assert wait_for_tournament(client, tournament_id)["finished"] == 1


def test_the_embedded_scheduler_plays_the_living_ladder(web: Web) -> None:
    """A submitted bot gets ladder matches against the built-ins with no tournament made, and the
    ladder follows them."""
    client = web.client(web.user("climber"))
    submitted = submit_bot(client, "edible", "climber", ("bot.py", STARTER.read_bytes()))
    assert submitted["validation"] == "passed", submitted["validation_log"]
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        bot = client.get(f"/api/v1/bots/{submitted['bot_id']}").json()
        if any(line["ladder"] and line["status"] == "done" for line in bot["matches"]) and bot["ladder"]:
            break
        time.sleep(0.5)
    else:
        pytest.fail("the bot played no ladder match within 300 s")
    assert bot["ladder"]["version_id"] == submitted["version_id"] and bot["ladder"]["games"] > 0
    ladder = client.get("/api/v1/ladders/edible").json()
    assert submitted["version_id"] in {entry["version_id"] for entry in ladder["entries"]}


def all_at_once(web: Web, requests: list[tuple[str, str, dict[str, str], bytes]]) -> list[tuple[int, str]]:
    """Each request (method, path, headers, body) on a connection of its own, all connected first and
    then sent at once; the status and text of each reply."""
    address = urllib.parse.urlsplit(web.base)
    sockets = [socket.create_connection((address.hostname, address.port), timeout=60) for _ in requests]
    for (method, path, headers, body), sock in zip(requests, sockets, strict=True):
        lines = [f"{method} {path} HTTP/1.1", f"Host: {address.netloc}", f"Content-Length: {len(body)}"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    replies = []
    for sock in sockets:
        response = http.client.HTTPResponse(sock)
        response.begin()
        replies.append((response.status, response.read().decode()))
        sock.close()
    return replies
