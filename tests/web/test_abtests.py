"""A/B tests in the web app: started from the JSON API and from a bot page's form, followed to their
verdict on the API and on their page (the LLR chart), and the requests that must be refused."""

from __future__ import annotations

import time
from typing import Any

from served import Client, Web

from arena.store.repo import latest_version

PASSWORD = "correct horse battery"


def wait_for_verdict(client: Client, test_id: int, timeout: float = 240) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(f"/api/v1/abtests/{test_id}").json()
        if not body["running"]:
            return body
        time.sleep(0.5)
    raise AssertionError(f"A/B test {test_id} still running after {timeout} s: {body}")


def test_heuristic_beats_random_from_the_api_and_its_page_draws_the_llr(web: Web) -> None:
    client = web.client(web.user("abby"))
    request = {"game": "kozel", "new": "builtin:heuristic", "old": "builtin:random", "elo1": 50}
    reply = client.post_json("/api/v1/abtests", {**request, "games_per_match": 12, "max_games": 480})
    assert reply.status == 200, reply.text
    started = reply.json()
    assert started["new"] == "builtin:heuristic" and started["upper"] > 0 > started["lower"]
    done = wait_for_verdict(client, started["id"])
    assert done["verdict"] == "better" and done["llr"] >= done["upper"] and done["games"] <= 240
    assert done["history"] and done["history"][-1]["games"] == done["games"] and done["elo"] > 0
    page = web.client().get(f"/abtests/{started['id']}")
    assert page.status == 200 and "Verdict: <strong>better</strong>" in page.text
    assert '<svg class="chart"' in page.text and "LLR after" in page.text
    tournament = client.get(f"/api/v1/tournaments/{done['tournament_id']}").json()
    assert tournament["kind"] == "abtest" and not tournament["rated"]


def test_a_bot_page_starts_a_test_with_its_form(web: Web) -> None:
    web.user("bree")
    browser = web.client()
    assert browser.log_in("bree", PASSWORD).status == 303
    with web.store.session() as session:  # a built-in is stored the first time it is named
        bot_id = latest_version(session, "edible", "builtin:heuristic").bot_id
    page = browser.get(f"/bots/{bot_id}")
    assert 'id="abtest-form"' in page.text and "arena bot test NEW --against OLD" in page.text
    fields = {
        "csrf": browser.csrf(f"/bots/{bot_id}"),
        "game": "edible",
        "new": "builtin:heuristic",
        "old": "builtin:random",
        "elo1": "5",
    }
    reply = browser.post_form("/abtests", fields)
    assert reply.status == 303 and reply.headers["location"].startswith("/abtests/"), reply.text
    test_id = int(reply.headers["location"].rsplit("/", 1)[1])
    body = web.client().get(f"/api/v1/abtests/{test_id}").json()
    assert (body["elo0"], body["elo1"], body["game"]) == (0, 5, "edible")
    bad = browser.post_form("/abtests", {**fields, "elo1": "-5"})
    assert bad.status == 400 and "elo0 (0) must be below elo1 (-5)" in bad.text
    without = web.client().post_form("/abtests", fields)
    assert without.status == 401
    cancel = web.client(web.admin_token).post_json(f"/api/v1/tournaments/{body['tournament_id']}/cancel", {})
    assert cancel.status == 200
    assert wait_for_verdict(web.client(), test_id, 30)["verdict"] == "cancelled"


def test_bad_requests_are_refused_naming_what_is_wrong_and_the_quota_holds(web: Web) -> None:
    cora = web.client(web.user("cora"))
    good = {"game": "edible", "new": "builtin:random", "old": "builtin:heuristic"}
    assert web.client().post_json("/api/v1/abtests", good).status == 401
    for change, status, message in (
        ({"elo0": 5, "elo1": 0}, 422, "elo0 (5) must be below elo1 (0)"),
        ({"alpha": 0.9}, 422, "alpha"),
        ({"game": "chess"}, 404, "no game 'chess'"),
        ({"old": "nobody"}, 400, "no edible bot named 'nobody'"),
        ({"games_per_match": 3}, 400, "multiple of 2"),
        ({"max_games": 4}, 400, "game cap"),
        ({"surprise": 1}, 422, "surprise"),
    ):
        reply = cora.post_json("/api/v1/abtests", {**good, **change})
        assert reply.status == status and message in reply.json()["error"], (change, reply.text)
    assert cora.get("/api/v1/abtests/999999").status == 404
    assert web.client().get("/abtests/999999").status == 404
    started = [cora.post_json("/api/v1/abtests", good).json() for _ in range(2)]
    over = cora.post_json("/api/v1/abtests", good)
    assert over.status == 429 and "unfinished tournaments" in over.json()["error"]
    for test in started:
        cora.post_json(f"/api/v1/tournaments/{test['tournament_id']}/cancel", {})
