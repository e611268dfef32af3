"""A bot with no Python in it enters a tournament from the web: a zip of a starter kit's build
(the bot and its ``arena-bot.toml``) uploaded through the browser's submit form passes validation
in the background, and a tournament made over the API plays it with every one of its games ok."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from served import Web, wait_for_tournament, wait_for_validation
from starter_kits import KITS, StarterKits


def zip_of(folder: Path) -> bytes:
    """The folder's contents (not the folder) as a zip, file modes kept: the executable bit too."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            archive.write(path, path.relative_to(folder).as_posix())
    return buffer.getvalue()


@pytest.mark.parametrize("kit", sorted(KITS))
def test_a_starter_uploaded_as_a_zip_on_the_submit_page_plays_a_tournament(
    web: Web, starter_kits: StarterKits, kit: str
) -> None:
    author, name = f"{kit}-author", f"{kit}-starter"
    token = web.user(author)
    browser, client = web.client(), web.client(token)  # forms take the session cookie, the API a token
    assert browser.log_in(author, "correct horse battery").status == 303
    upload = zip_of(starter_kits.built(kit))
    assert sorted(zipfile.ZipFile(io.BytesIO(upload)).namelist()) == list(KITS[kit].files)  # no .py

    fields = {"csrf": browser.csrf("/submit"), "game": "edible", "name": name}
    reply = browser.post_multipart("/submit", fields, {"file": (f"{name}.zip", upload)})
    assert reply.status == 303 and reply.headers["location"].startswith("/bots/"), reply.text
    bot_id = int(reply.headers["location"].removeprefix("/bots/"))
    [version] = client.get(f"/api/v1/bots/{bot_id}").json()["versions"]
    done = wait_for_validation(client, {"bot_id": bot_id, "version_id": version["id"]}, timeout=120)
    assert done["validation"] == "passed", done["validation_log"]
    source = client.get(f"/api/v1/versions/{version['id']}/source").json()
    assert sorted(file["name"] for file in source["files"]) == list(KITS[kit].files)

    created = client.post_json(
        "/api/v1/tournaments", {"game": "edible", "bots": [name, "builtin:random"], "games_per_match": 4}
    )
    assert created.status == 200, created.text
    state = wait_for_tournament(client, created.json()["id"], timeout=120)
    assert state["total"] == len(state["matches"]) == 1
    for line in state["matches"]:
        match = client.get(f"/api/v1/matches/{line['id']}").json()
        assert match["status"] == "done", match["error"]
        statuses = [
            status
            for game in match["games"]
            for bot, status in zip(game["seats"], game["statuses"], strict=True)
            if bot == name
        ]
        assert statuses == ["ok"] * 4, match["games"]
