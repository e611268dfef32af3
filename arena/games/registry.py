"""Every playable game, by name and by versioned id (``name@version``), found by its folder.

A game is one folder under ``arena/games/`` (a package) whose ``__init__`` names the game (``GAME``,
an ``arena.games.base.Game`` with its facts: seats, teams, built-in bots, rules page) and the earlier
rules versions kept for replays (``RETIRED``). Each layer finds what it needs in the folder by a
module's name, and a game without that module goes without: ``bots`` and ``search``, the built-in
bots (``Game.builtin_bots`` names them); ``codec``, its wire codec ``CODEC`` (``arena.wire.codec``;
without one it plays in-process); ``checks``, the ``SITUATIONS`` and ``PINS`` that ``arena bot
check`` tries a bot in (``arena.checks``); ``table.js``, its card table for the web app's replays and
live games.

Adding a game is adding its folder: no other module names a game.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType
from typing import Any

import arena.games
from arena.games.base import BadConfig, Game

AnyGame = Game[Any, Any, Any]


@cache
def _folders() -> tuple[tuple[AnyGame, ...], tuple[AnyGame, ...]]:
    """The current and the retired games of every game folder, the current in their listed order."""
    current: list[AnyGame] = []
    retired: list[AnyGame] = []
    for folder in pkgutil.iter_modules(arena.games.__path__):
        if not folder.ispkg:
            continue
        package = importlib.import_module(f"{arena.games.__name__}.{folder.name}")
        game = getattr(package, "GAME", None)
        if isinstance(game, Game):
            current.append(game)
            retired.extend(getattr(package, "RETIRED", ()))
    return tuple(sorted(current, key=lambda game: (game.listed, game.name))), tuple(retired)


def all_games() -> tuple[AnyGame, ...]:
    return _folders()[0]


def get_game(game_id: str) -> AnyGame:
    """The game named ``game_id``: ``edible`` (the current version) or ``edible@1`` (exactly, a
    retired version included)."""
    current, retired = _folders()
    name, _, version = game_id.partition("@")
    for game in current if not version else current + retired:
        if game.name == name and (not version or str(game.version) == version):
            return game
    known = ", ".join(game.game_id for game in current)
    raise BadConfig(f"unknown game {game_id!r}; known games: {known}")


def game_module(game: AnyGame, name: str) -> ModuleType | None:
    """The module ``name`` of ``game``'s folder (``codec``, ``checks``), or ``None`` if the game has
    none."""
    qualified = f"{game.package}.{name}"
    try:
        return importlib.import_module(qualified)
    except ModuleNotFoundError as error:
        if error.name != qualified:
            raise
        return None
