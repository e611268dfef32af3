"""A signed-in user's own things: who they are, with their bots (``GET /api/v1/me``), and their own
page (``/me``): their bots (versions, validation, ladder rank), a new API token and a new password."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import BaseModel
from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from arena.store.errors import AuthError
from arena.store.models import Bot, BotVersion, User, WebSession
from arena.store.repo import api_token, hash_token
from arena.web import security
from arena.web.views.bots import Validation, validation
from arena.web.views.common import Timestamp
from arena.web.views.ladder import Ladder, LadderEntry


class Me(BaseModel):
    name: str
    is_admin: bool
    bots: list[dict[str, Any]]


def me(session: Session, user: User) -> Me:
    bots = session.execute(
        select(Bot.id, Bot.game, Bot.name, func.count(BotVersion.id))
        .join(BotVersion, BotVersion.bot_id == Bot.id)
        .where(Bot.owner_id == user.id)
        .group_by(Bot.id)
        .order_by(Bot.game, Bot.name)
    ).all()
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
    bots = session.scalars(select(Bot).where(Bot.owner_id == user.id).order_by(Bot.game, Bot.name)).all()
    places = {}
    for game in sorted({bot.game for bot in bots}):
        places.update({entry.bot_id: entry for entry in ladder_of(game).entries})
    mine = []
    for bot in bots:
        versions = session.scalars(
            select(BotVersion).where(BotVersion.bot_id == bot.id).order_by(BotVersion.id.desc())
        ).all()
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


def new_token(session: Session, user: User) -> str:
    """A new API token for ``user``, replacing the old one (which stops working at once); shown once,
    only its hash is stored."""
    token = api_token()
    user.token_hash = hash_token(token)
    session.flush()
    return token


def change_password(session: Session, user: User, current: str, new: str, keep_session: str | None) -> None:
    """Set a new web password after checking the current one; the user's other browser sessions end.
    Raises ``AuthError`` for a wrong current password, ``StoreError`` for a new one too short."""
    if not user.password_hash or not security.check_password(current, user.password_hash):
        raise AuthError("the current password is wrong")
    security.set_password(user, new)
    others = delete(WebSession).where(WebSession.user_id == user.id)
    if keep_session:
        others = others.where(WebSession.key_hash != hash_token(keep_session))
    session.execute(others)
    session.flush()
