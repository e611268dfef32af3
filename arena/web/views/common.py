"""What the views share.

Moments with their zone, the errors a view raises, who may see a bot's private things, and the
counting of lists in pages.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator

from arena.store.models import Bot, User


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


Timestamp = Annotated[datetime, AfterValidator(_utc)]
"""A moment as the store keeps it (UTC, without its zone), with its zone: ``...Z`` in JSON."""


class NotFound(LookupError):
    """Nothing of that kind with that id (or not visible to the viewer)."""


class Forbidden(PermissionError):
    """It exists, but the viewer may not see it."""


def can_see_private(viewer: User | None, bot: Bot) -> bool:
    """A bot's logs and sources: its owner, and admins."""
    return viewer is not None and (
        viewer.is_admin or (bot.owner_id is not None and bot.owner_id == viewer.id)
    )


def page_count(count: int, size: int) -> int:
    """Pages of ``size`` that ``count`` lines fill (one, empty, for none)."""
    return max(1, -(-count // size))
