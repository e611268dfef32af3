"""The Card Arena Python SDK: write a ``Bot`` subclass and call ``run(MyBot())``."""

from sdk.bot import Bot, MatchInfo
from sdk.client import run

__all__ = ["Bot", "MatchInfo", "run"]
