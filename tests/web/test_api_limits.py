"""Issue 18: the API's limits on tournaments, cancelling them, and bad input that made the server
answer 500 (ids past the store's integers, corrupt zips), over a real server: every such request is
a 4xx with a message, and answered at once."""

from __future__ import annotations

import io
import re
import time
import zipfile
from datetime import datetime
from typing import Any

import pytest
from recorded import add_bot, add_match, add_tournament
from served import Client, Web

from arena.store.errors import StoreError
from arena.store.models import Match, Tournament
from arena.tournament import limits
from arena.tournament.service import TournamentSpec, create

BOTS = ["builtin:random", "builtin:heuristic"]


def tournament(client: Client, **fields: Any) -> tuple[int, Any]:
    started = time.monotonic()
    reply = client.post_json("/api/v1/tournaments", {"game": "edible", "bots": BOTS, **fields})
    assert time.monotonic() - started < 5, f"{fields}: {time.monotonic() - started:.1f} s"
    return reply.status, reply.json()


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"rounds": 1_000_000}, "rounds: Input should be less than or equal to 100"),
        ({"rounds": 1.1e25}, "rounds: Input should be a valid integer"),
        ({"rounds": 0}, "rounds: Input should be greater than or equal to 1"),
        ({"games_per_match": 1e9}, "games_per_match: Input should be a valid integer"),
        ({"games_per_match": 1001}, "games_per_match: Input should be less than or equal to 1000"),
        ({"games_per_match": "20"}, "games_per_match: Input should be a valid integer"),
        ({"bots": [f"builtin:bot{n}" for n in range(65)]}, "bots: List should have at most 64 items"),
        ({"bots": ["", "builtin:random"]}, "bots.0: String should have at least 1 character"),
        ({"bots": ["builtin:random", "x" * 73]}, "bots.1: String should have at most 72 characters"),
        ({"seats": 10**6}, "seats: Input should be less than or equal to 16"),
        ({"seed": 2**128}, "seed: Input should be less than or equal to"),
        ({"seed": -1}, "seed: Input should be greater than or equal to 0"),
        ({"config": {f"field{n}": 1 for n in range(17)}}, "config: Dictionary should have at most 16 items"),
        ({"duplicate": "yes"}, "duplicate: Input should be a valid boolean"),
        ({"colour": "red"}, "colour: Extra inputs are not permitted"),
    ],
)
def test_the_api_refuses_tournaments_over_the_limits_before_building_anything(
    web: Web, fields: dict[str, Any], says: str
) -> None:
    status, body = tournament(web.client(web.admin_token), **fields)
    assert status == 422 and says in body["error"], body


def test_game_configs_and_schedules_are_bounded_too(web: Web) -> None:
    admin = web.client(web.admin_token)
    # Checking a config deals a game: a deck of a billion cards would be dealt.
    reply = admin.post_json(
        "/api/v1/tournaments",
        {"game": "believe", "bots": ["builtin:random", "builtin:honest"], "config": {"copies": 10**9}},
    )
    assert reply.status == 400 and "'copies' must be at most 100000" in reply.json()["error"]
    # A match's decisions are bounded: its games times the config's caps. Kozel's caps at 100,000
    # and 1,000 games a match would have run for about 13 hours (issue 35).
    caps = {"series_target": 100_000, "game_cap": 100_000, "action_cap": 100_000}
    endless = {"game": "kozel", "bots": ["builtin:random", "builtin:heuristic"], "games_per_match": 1000}
    reply = admin.post_json("/api/v1/tournaments", {**endless, "config": caps})
    assert reply.status == 400, reply.text
    assert "at most 1,000,000 decisions: 1000 games of up to 100,000 actions" in reply.json()["error"]
    reply = admin.post_json("/api/v1/tournaments", {**endless, "games_per_match": 10, "config": caps})
    assert reply.status == 200, reply.text  # 10 x 100,000: within the bound
    assert admin.post_json(f"/api/v1/tournaments/{reply.json()['id']}/cancel", {}).status == 200
    # The number of matches is checked on one round's schedule before the whole one is built.
    many = [f"bot{n}" for n in range(limits.MAX_BOTS)]
    with web.store.session() as session:
        started = time.monotonic()
        with pytest.raises(StoreError, match=r"over the limit of 5000 matches"):
            create(session, TournamentSpec(game="edible", bots=many, seats=2, rounds=limits.MAX_ROUNDS), None)
        assert time.monotonic() - started < 2
        with pytest.raises(StoreError, match=r"rounds must be 1 to 100, not 1000000"):
            create(session, TournamentSpec(game="edible", bots=BOTS, rounds=1_000_000), None)
    # The web form keeps its own bounds, the same ones.
    web.user("forma")
    client = web.client()
    client.log_in("forma", "correct horse battery")
    fields = {"game": "edible", "bots": BOTS, "csrf": client.csrf("/tournaments"), "rounds": "1000000"}
    reply = client.post_form("/tournaments", fields)
    assert reply.status == 422 and "rounds" in reply.text


def test_out_of_range_ids_are_refused_not_500(web: Web) -> None:
    client = web.client(web.admin_token)
    for big in (2**63, 2**31):
        for path in (
            f"/api/v1/bots/{big}",
            f"/api/v1/versions/{big}/source",
            f"/api/v1/matches/{big}",
            f"/api/v1/matches/{big}/replay/0",
            f"/api/v1/matches/1/replay/{big}",
            f"/api/v1/matches/{big}/logs/0",
            f"/api/v1/tournaments/{big}",
        ):
            reply = client.get(path)
            assert reply.status == 422 and "less than or equal to" in reply.json()["error"], (
                path,
                reply.text,
            )
        for path in (f"/bots/{big}", f"/versions/{big}/source", f"/matches/{big}", f"/tournaments/{big}"):
            reply = client.get(path)
            assert reply.status == 422 and "less than or equal to" in reply.text, path
        reply = client.post_json(f"/api/v1/tournaments/{big}/cancel", {})
        assert reply.status == 422
    assert client.get(f"/api/v1/bots/{2**31 - 1}").json() == {"error": f"no bot {2**31 - 1}"}


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("bot.py", "print('hello, world')\n" * 20)
    return buffer.getvalue()


def _damaged(how: str) -> bytes:
    data = bytearray(_zip())
    central = data.rindex(b"PK\x01\x02")
    if how == "crc":  # the CRC-32 in both headers
        data[14] ^= 0xFF
        data[central + 16] ^= 0xFF
    elif how == "deflate":  # the compressed stream's first bytes
        start = 30 + len("bot.py")
        data[start : start + 2] = b"\xff\xff"
    else:  # the encrypted flag in both headers
        data[6] |= 1
        data[central + 8] |= 1
    return bytes(data)


@pytest.mark.parametrize(
    ("how", "says"),
    [
        ("crc", "'bot.py': the zip entry is damaged or cannot be read (Bad CRC-32"),
        ("deflate", "'bot.py': the zip entry is damaged or cannot be read (Error -3"),
        ("encrypted", "'bot.py': encrypted zip entries are not supported"),
    ],
)
def test_corrupt_zips_are_refused_naming_the_entry(web: Web, how: str, says: str) -> None:
    client = web.client(web.admin_token)
    reply = client.post_multipart(
        "/api/v1/bots", {"game": "edible", "name": f"zip-{how}"}, {"file": ("bot.zip", _damaged(how))}
    )
    assert reply.status == 400 and says in reply.json()["error"], reply.text


def test_timestamps_carry_their_time_zone(web: Web) -> None:
    status, body = tournament(web.client(web.admin_token), games_per_match=1)
    assert status == 200, body
    for stamp in [
        body["created_at"],
        *(line["created_at"] for line in web.client().get("/api/v1/tournaments").json()),
    ]:
        offset = datetime.fromisoformat(stamp).utcoffset()
        assert offset is not None and offset.total_seconds() == 0, stamp
    spec = web.client().get("/api/openapi.json").json()
    created = spec["components"]["schemas"]["TournamentLine"]["properties"]["created_at"]
    assert created == {"type": "string", "format": "date-time", "title": "Created At"}


def test_405_says_which_methods_are_allowed(web: Web) -> None:
    client = web.client()
    reply = client.request("PUT", "/api/v1/tournaments")
    assert reply.status == 405 and set(reply.headers["allow"].split(", ")) == {"GET", "POST"}
    assert reply.json() == {"error": "Method Not Allowed"}
    reply = client.request("DELETE", "/bots/1")
    assert reply.status == 405 and reply.headers["allow"] == "GET" and "<html" in reply.text


def _statuses(web: Web, tournament_id: int) -> set[str]:
    with web.store.session() as session:
        tournament = session.get_one(Tournament, tournament_id)
        return {match.status for match in tournament.matches}


def test_the_creator_or_an_admin_cancels_a_tournament_and_nothing_more_runs(web: Web) -> None:
    ann, mallory = web.user("ann"), web.user("mallory")
    client = web.client(ann)
    status, body = tournament(client, games_per_match=1000, rounds=20)
    assert status == 200 and body["status"] == "running" and body["total"] == 20, body
    tournament_id = body["id"]
    reply = web.client(mallory).post_json(f"/api/v1/tournaments/{tournament_id}/cancel", {})
    assert reply.status == 403 and "creator or an admin" in reply.json()["error"]
    reply = web.client().post_json(f"/api/v1/tournaments/{tournament_id}/cancel", {})
    assert reply.status == 401
    reply = client.post_json(f"/api/v1/tournaments/{tournament_id}/cancel", {})
    assert reply.status == 200, reply.text
    body = reply.json()
    assert body["status"] == "cancelled" and body["counts"] == {"void": 20} and body["finished"] == 20
    # no worker or scheduler starts a void match, and a running one's result is refused
    time.sleep(2)
    assert _statuses(web, tournament_id) == {"void"}
    assert client.get(f"/api/v1/tournaments/{tournament_id}").json()["status"] == "cancelled"
    page = client.get(f"/tournaments/{tournament_id}").text
    assert 'id="tournament-cancelled"' in page and "cancel-tournament" not in page
    assert "cancelled" in client.get("/tournaments").text
    # again: nothing left to do, nothing refused
    assert client.post_json(f"/api/v1/tournaments/{tournament_id}/cancel", {}).status == 200
    assert client.post_json("/api/v1/tournaments/424242/cancel", {}).status == 404

    # an admin may cancel anyone's
    status, body = tournament(client, games_per_match=1000, rounds=5)
    assert status == 200, body
    reply = web.client(web.admin_token).post_json(f"/api/v1/tournaments/{body['id']}/cancel", {})
    assert reply.status == 200 and reply.json()["status"] == "cancelled"


def test_finished_and_ladder_tournaments_cannot_be_cancelled(web: Web) -> None:
    with web.store.session() as session:
        versions = add_bot(session, "edible", "done-a") + add_bot(session, "edible", "done-b")
        finished = add_tournament(session, "edible")
        add_match(session, finished, versions, [[0, 1]])
        ladder = add_tournament(session, "edible", "ladder")
        finished_id, ladder_id = finished.id, ladder.id
    admin = web.client(web.admin_token)
    reply = admin.post_json(f"/api/v1/tournaments/{finished_id}/cancel", {})
    assert reply.status == 409 and "nothing to cancel" in reply.json()["error"]
    assert admin.get(f"/api/v1/tournaments/{finished_id}").json()["status"] == "finished"
    reply = admin.post_json(f"/api/v1/tournaments/{ladder_id}/cancel", {})
    assert reply.status == 409 and "ladder" in reply.json()["error"]


def test_the_tournament_page_cancels_with_its_csrf_token(web: Web) -> None:
    token = web.user("pat")
    status, body = tournament(web.client(token), games_per_match=1000, rounds=5)
    assert status == 200, body
    tournament_id = body["id"]
    browser = web.client()
    browser.log_in("pat", "correct horse battery")
    page = browser.get(f"/tournaments/{tournament_id}").text
    assert 'id="cancel-tournament"' in page
    reply = browser.post_form(f"/tournaments/{tournament_id}/cancel", {"csrf": "forged"})
    assert reply.status == 403
    assert _statuses(web, tournament_id) != {"void"}
    csrf = re.search(r'id="cancel-tournament">\s*<input type="hidden" name="csrf" value="([^"]+)"', page)
    assert csrf is not None
    reply = browser.post_form(f"/tournaments/{tournament_id}/cancel", {"csrf": csrf.group(1)})
    assert reply.status == 303 and reply.headers["location"] == f"/tournaments/{tournament_id}"
    assert _statuses(web, tournament_id) == {"void"}
    # someone else sees no button
    web.user("quinn")
    other = web.client()
    other.log_in("quinn", "correct horse battery")
    status, body = tournament(web.client(token), games_per_match=1000, rounds=5)
    assert status == 200
    assert "cancel-tournament" not in other.get(f"/tournaments/{body['id']}").text
    web.client(token).post_json(f"/api/v1/tournaments/{body['id']}/cancel", {})
    with web.store.session() as session:
        assert all(
            match.error == "cancelled by pat"
            for match in session.query(Match).filter(Match.tournament_id == body["id"])
        )
