"""High card's built-in bot: the one that plays uniformly at random, as in every game that lists all its
actions."""

from arena.games.bot import RandomBot

__all__ = ["RandomBot"]
