"""No web request waits on a bot: a submission is answered at once and validated in the background,
even when the bot stalls the arena's sends, and a validation cut short by a stop runs again."""

from __future__ import annotations

import io
import json
import signal
import zipfile
from pathlib import Path

from served import ROOT, Web, start_server, wait_for_validation

from arena.store.db import Store
from arena.store.models import BotVersion

HOSTILE = ROOT / "tests" / "bots"

THOUGHTFUL_BOT = b'''"""Thinks 50 ms a decision: its validation match takes a while."""

import time

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class Thoughtful(Bot[EdibleObservation, EdibleAction]):
    name = "thoughtful"

    def act(self, observation: EdibleObservation) -> EdibleAction:
        time.sleep(0.05)
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(Thoughtful())
'''


def stalled_window_zip() -> bytes:
    """The class 4 attack bot: says Hello over raw HTTP/2, then never reads (receive window 0)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in ("stalled_window.py", "h2raw.py"):
            archive.write(HOSTILE / name, name)
        archive.writestr("target.json", json.dumps({"after_match_start": False}))
    return buffer.getvalue()


def test_a_submission_that_stalls_the_arena_is_answered_at_once_and_fails(web: Web) -> None:
    client = web.client(web.user("mallory"))
    reply = client.post_multipart(
        "/api/v1/bots",
        {"game": "edible", "name": "stall", "entry": "stalled_window.py"},
        {"file": ("stall.zip", stalled_window_zip())},
    )
    assert reply.status == 200, reply.text
    assert reply.json()["validation"] == "validating"  # the reply did not wait for the match
    assert client.get("/healthz").status == 200
    done = wait_for_validation(client, reply.json())
    assert done["validation"] == "failed"
    assert "timeout" in done["validation_log"], done["validation_log"]
    reply = client.post_json("/api/v1/tournaments", {"game": "edible", "bots": ["stall", "builtin:random"]})
    assert reply.status == 400 and "no version that passed validation" in reply.json()["error"]


def test_a_validation_cut_short_by_a_stop_runs_again_at_the_next_start(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    process, base = start_server(home)
    store = Store(f"sqlite:///{home / 'arena.db'}")
    try:
        web = Web(base, home, store, (home / "api-token").read_text().strip(), process)
        client = web.client(web.user("tess"))
        reply = client.post_multipart(
            "/api/v1/bots", {"game": "edible", "name": "thoughtful"}, {"file": ("bot.py", THOUGHTFUL_BOT)}
        )
        assert reply.status == 200 and reply.json()["validation"] == "validating", reply.text
        process.send_signal(signal.SIGKILL)  # the machine fails mid-validation
        process.wait(timeout=20)
        with store.session() as session:
            version = session.get_one(BotVersion, reply.json()["version_id"])
            assert version.validating and not version.validated

        process, base = start_server(home)
        client.base = base
        bot = client.get(f"/api/v1/bots/{reply.json()['bot_id']}").json()
        assert [version["validation"] for version in bot["versions"]] == ["validating"]
        done = wait_for_validation(client, reply.json())
        assert done["validation"] == "passed", done["validation_log"]
    finally:
        process.terminate()
        process.wait(timeout=20)
        store.dispose()
