"""Every playable game, by name and by versioned id (``name@version``)."""

from __future__ import annotations

from typing import Any

from arena.games.base import BadConfig, Game
from arena.games.believe import BelieveGame
from arena.games.edible import Edible
from arena.games.kozel import Kozel
from arena.games.kozel.engine import Kozel1

_GAMES: tuple[Game[Any, Any, Any], ...] = (Edible(), BelieveGame(), Kozel())
_RETIRED: tuple[Game[Any, Any, Any], ...] = (Kozel1(),)
"""Earlier rules versions, played no more: kept so that their matches still replay exactly."""


def all_games() -> tuple[Game[Any, Any, Any], ...]:
    return _GAMES


def get_game(game_id: str) -> Game[Any, Any, Any]:
    """The game named ``game_id``: ``edible`` (the current version) or ``edible@1`` (exactly, a
    retired version included)."""
    name, _, version = game_id.partition("@")
    for game in _GAMES if not version else _GAMES + _RETIRED:
        if game.name == name and (not version or str(game.version) == version):
            return game
    known = ", ".join(game.game_id for game in _GAMES)
    raise BadConfig(f"unknown game {game_id!r}; known games: {known}")
