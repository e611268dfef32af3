"""A signed-in user's own things: who they are, with their bots, and their own page.

``GET /api/v1/me`` says who they are, with their bots; their page (``/me``) shows their bots
(versions, validation, ladder rank) and takes a new password.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from sqlalchemy.orm import Session

from arena.store.errors import AuthError
from arena.store.models import User
from arena.store.queries.bots import owned_bot_counts, owned_bots, versions_newest_first
from arena.store.repo.accounts import close_other_web_sessions
from arena.web import security
from arena.web.views.bots import Validation, validation
from arena.web.views.common import Timestamp
from arena.web.views.ladder import Ladder, LadderEntry


class Me(BaseModel):
    name: str
    is_admin: bool
    bots: list[dict[str, Any]]


def me(session: Session, user: User) -> Me:
    bots = owned_bot_counts(session, user.id)
    return Me(
        name=user.name,
        is_admin=user.is_admin,
        bots=[
            {"id": bot_id, "game": game, "name": name, "versions": count}
            for bot_id, game, name, count in bots
        ],
    )


class MyVersion(BaseModel):
    id: int
    validation: Validation
    created_at: Timestamp
    entry: str


class MyBot(BaseModel):
    id: int
    game: str
    name: str
    versions: list[MyVersion]
    """Newest first."""
    ladder: LadderEntry | None
    """Its place on its game's ladder, if it has one."""

    @property
    def newest(self) -> MyVersion:
        return self.versions[0]


def my_bots(session: Session, user: User, ladder_of: Callable[[str], Ladder]) -> list[MyBot]:
    """The user's bots by game and name, each with its versions and ladder place (``ladder_of(game)``
    gives a game's ladder: the app's cached one)."""
    bots = owned_bots(session, user.id)
    places = {}
    for game in sorted({bot.game for bot in bots}):
        places.update({entry.bot_id: entry for entry in ladder_of(game).entries})
    mine = []
    for bot in bots:
        versions = versions_newest_first(session, bot.id)
        if not versions:
            continue
        mine.append(
            MyBot(
                id=bot.id,
                game=bot.game,
                name=bot.name,
                versions=[
                    MyVersion(id=v.id, validation=validation(v), created_at=v.created_at, entry=v.entry)
                    for v in versions
                ],
                ladder=places.get(bot.id),
            )
        )
    return mine


def change_password(session: Session, user: User, current: str, new: str, keep_session: str | None) -> None:
    """Set a new web password after checking the current one; the user's other browser sessions end.
    Raises ``AuthError`` for a wrong current password, ``StoreError`` for a new one too short."""
    if not user.password_hash or not security.check_password(current, user.password_hash):
        raise AuthError("the current password is wrong")
    security.set_password(user, new)
    close_other_web_sessions(session, user, keep_session)
