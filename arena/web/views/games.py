"""The games: their seats and built-in bots, and the game a page or a call names."""

from __future__ import annotations

from pydantic import BaseModel

from arena.games.base import GameError
from arena.games.registry import all_games, get_game
from arena.web.views.common import NotFound


class GameInfo(BaseModel):
    name: str
    title: str
    version: int
    min_seats: int
    max_seats: int
    builtin_bots: list[str]


def games() -> list[GameInfo]:
    return [
        GameInfo(
            name=game.name,
            title=game.title,
            version=game.version,
            min_seats=game.min_seats,
            max_seats=game.max_seats,
            builtin_bots=[f"builtin:{name}" for name in game.builtin_bots],
        )
        for game in all_games()
    ]


def games_by_name() -> dict[str, GameInfo]:
    return {info.name: info for info in games()}


def known_game(game: str) -> str:
    try:
        return get_game(game).name
    except (KeyError, GameError):
        raise NotFound(f"no game {game!r}: the games are believe, edible and kozel") from None
