"""Each game's card table for the replays and live games, served from the game's own folder.

A game draws its table with the ``table.js`` in its folder (``arena/games/<game>/table.js``), which
registers itself with the shared core (``/static/table.js``, ``window.ArenaTable``). The app serves
it at ``/static/games/<game>/table.js`` as it serves its other static files (``ETag``,
``Last-Modified``, 304 to a conditional request). Only the listed games' tables are served: the
request's path is looked up among their names, never joined to a folder, so anything else is a 404.
A page loads a game's table only when it has one (``script``); without it the core says there is no
drawing and the page shows the raw data.
"""

from __future__ import annotations

import importlib
import os
from functools import cache
from pathlib import Path

from fastapi.staticfiles import StaticFiles

from arena.games.registry import all_games

PREFIX = "/static/games"
NAME = "table.js"


@cache
def files() -> dict[str, Path]:
    """The served tables: ``edible/table.js`` (as a request's path reads) -> the file."""
    found: dict[str, Path] = {}
    for game in all_games():
        path = Path(str(importlib.import_module(game.package).__file__)).parent / NAME
        if path.is_file():
            found[os.path.join(game.name, NAME)] = path
    return found


def script(game: str) -> str | None:
    """Where a page loads ``game``'s table from, or None when the game has none."""
    return f"{PREFIX}/{game}/{NAME}" if os.path.join(game, NAME) in files() else None


class GameTables(StaticFiles):
    """The games' tables, mounted at ``PREFIX``."""

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        file = files().get(path)
        if file is None:
            return "", None
        try:
            return str(file), file.stat()
        except FileNotFoundError:
            return "", None
