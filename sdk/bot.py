"""The bot contract, ``Bot`` and ``MatchInfo``: the SDK's names for ``arena.games.bot``."""

from arena.games.bot import Bot, MatchInfo

__all__ = ["Bot", "MatchInfo"]
