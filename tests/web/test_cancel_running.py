"""A cancelled tournament's running match stops: its bots go and its executor takes the next match.

A real ``arena serve`` with one executor: a user's long believe match runs, another tournament's
match waits behind it; the creator cancels, and the waiting match starts within seconds (before this
was built, the pool played the void match to its end, and everything waited behind it)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from served import Client, Web, serving, wait_for_tournament

STOPPED_WITHIN_S = 5.0


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """A server with one executor (so that a match must end for the next to start), no ladder."""
    with serving(tmp_path_factory.mktemp("arena-home"), ["--workers", "1", "--no-ladder"]) as web:
        yield web


def state(client: Client, tournament_id: int) -> dict[str, Any]:
    reply: dict[str, Any] = client.get(f"/api/v1/tournaments/{tournament_id}").json()
    return reply


def started(client: Client, tournament_id: int, timeout: float) -> float:
    """When (``time.monotonic``) the tournament's match was first seen started (running, or even
    done); fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if set(state(client, tournament_id)["counts"]) & {"running", "done"}:
            return time.monotonic()
        time.sleep(0.1)
    pytest.fail(f"tournament {tournament_id}'s match did not start within {timeout:.0f} s")


def test_cancelling_stops_the_running_match_and_the_next_one_starts(web: Web) -> None:
    user = web.client(web.user("canceller"))
    long = {"game": "believe", "bots": ["builtin:caller", "builtin:random"], "games_per_match": 1000}
    created = user.post_json("/api/v1/tournaments", long)
    assert created.status == 200, created.text
    long_id = created.json()["id"]
    started(user, long_id, timeout=60)
    short = {"game": "edible", "bots": ["builtin:heuristic", "builtin:random"], "games_per_match": 2}
    waiting = user.post_json("/api/v1/tournaments", short)
    assert waiting.status == 200, waiting.text
    waiting_id = waiting.json()["id"]
    time.sleep(1.0)
    assert state(user, waiting_id)["counts"] == {"pending": 1}  # behind the long match

    cancelled_at = time.monotonic()
    reply = user.post_json(f"/api/v1/tournaments/{long_id}/cancel", {})
    assert reply.status == 200, reply.text
    assert started(user, waiting_id, timeout=60) - cancelled_at <= STOPPED_WITHIN_S
    assert wait_for_tournament(user, waiting_id)["counts"] == {"done": 1}
    assert state(user, long_id)["counts"] == {"void": 1}
