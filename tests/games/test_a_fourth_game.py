"""A game is its folder alone: a toy fourth game (``highcard``, beside this file) joins the platform
by being put among the game folders, with no other module touched, passes the conformance suite,
and the web app serves its card table (its ``table.js``) to the pages that draw it.

The folder is put among the games by adding its parent to ``arena.games.__path__`` in a fresh
interpreter, which is what copying it into ``arena/games/`` would do, without writing to the tree.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOY = Path(__file__).parent / "highcard"


def run_with_the_toy(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    folders = tmp_path / "games"
    shutil.copytree(TOY, folders / "highcard")
    prologue = f"import arena.games\narena.games.__path__.append({str(folders)!r})\n"
    return subprocess.run(
        [sys.executable, "-c", prologue + code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )


def test_the_toy_game_is_found_by_its_folder_and_plays(tmp_path: Path) -> None:
    code = (
        "from arena.cli import main\n"
        "assert main(['games']) == 0\n"
        "raise SystemExit(main(['play', 'highcard', 'builtin:random', 'builtin:random', 'builtin:random',"
        f" '--in-process', '--games', '6', '--quiet', '--replays', {str(tmp_path / 'replays')!r}]))\n"
    )
    result = run_with_the_toy(tmp_path, code)
    assert result.returncode == 0, result.stderr
    assert "highcard High card (id highcard@1, 2-4 seats)" in result.stdout
    assert "built-in bots: builtin:random" in result.stdout
    assert "edible" in result.stdout and "kozel" in result.stdout, "the three games are still there"
    assert len(list((tmp_path / "replays").glob("*.json*"))) == 1, "the match was recorded"


def test_the_toy_game_passes_the_conformance_suite(tmp_path: Path) -> None:
    code = (
        "import sys, pytest\n"
        "sys.exit(pytest.main(['tests/conformance/test_conformance.py', '-q', '-k', 'highcard',"
        " '-p', 'no:cacheprovider', '-p', 'no:randomly']))\n"
    )
    result = run_with_the_toy(tmp_path, code)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    tail = result.stdout.strip().splitlines()[-1]
    passed = int(tail.split(" passed")[0].split()[-1])
    assert passed >= 3 * 10 and "failed" not in tail, tail


# The app called as uvicorn calls it (Starlette's TestClient would need httpx), without its lifespan:
# nothing is scheduled. It answers paths, and renders the play page of a toy game.
SERVE_THE_TOY = """
import asyncio, json
from pathlib import Path
from arena.web.app import create_app
from arena.web.render import render
from arena.web.settings import Settings

home = Path(HOME)
app = create_app(Settings(store_url=f"sqlite:///{home / 'arena.db'}", home=home))


async def get(path):
    asked = [{"type": "http.request", "body": b""}]
    sent = []

    async def receive():
        if asked:
            return asked.pop()
        await asyncio.Event().wait()  # the client stays to the end

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": path, "headers": [], "query_string": b""}
    await app(scope, receive, send)
    return [sent[0]["status"], b"".join(message.get("body", b"") for message in sent[1:]).decode()]


paths = ["/static/games/highcard/table.js", "/static/games/edible/table.js", "/static/games/nogame/table.js",
         "/static/games/highcard/engine.py", "/static/games/highcard/../highcard/RULES.md"]
served = {path: asyncio.run(get(path)) for path in paths}
page = render("play.html", None, match_id=1, game="highcard", clock_s=60)
print(json.dumps({"served": served, "page": page}))
"""


def test_the_web_app_serves_the_toy_game_s_table_from_its_folder(tmp_path: Path) -> None:
    result = run_with_the_toy(tmp_path, SERVE_THE_TOY.replace("HOME", repr(str(tmp_path))))
    assert result.returncode == 0, result.stderr[-3000:]
    answer = json.loads(result.stdout.splitlines()[-1])
    served = answer["served"]
    assert served["/static/games/highcard/table.js"] == [200, (TOY / "table.js").read_text()]
    assert served["/static/games/edible/table.js"][0] == 200, "the three games' tables are still there"
    for path in ["/static/games/nogame/table.js", "/static/games/highcard/engine.py"]:
        assert served[path][0] == 404, path
    assert served["/static/games/highcard/../highcard/RULES.md"][0] == 404, "only table.js, by name"
    assert '<script src="/static/games/highcard/table.js"></script>' in answer["page"]
