"""The Card Arena Python SDK: write a ``Bot`` subclass and call ``run(MyBot())``."""

from typing import Any

from sdk.bot import Bot, MatchInfo


def run(bot: Bot[Any, Any], argv: list[str] | None = None) -> None:
    """Connect ``bot`` to the arena and play one match (see ``sdk.client.run``)."""
    from sdk.client import run as run_client  # grpc is imported only by bot processes

    run_client(bot, argv)


__all__ = ["Bot", "MatchInfo", "run"]
