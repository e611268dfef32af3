"""A signed-in author's own page: their bots (versions, validation, ladder rank), a new API token and a
new password."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from arena.store.errors import AuthError
from arena.store.models import Bot, BotVersion, User, WebSession
from arena.store.repo import api_token, hash_token
from arena.web import security, views


class MyVersion(BaseModel):
    id: int
    validation: views.Validation
    created_at: views.Timestamp
    entry: str


class MyBot(BaseModel):
    id: int
    game: str
    name: str
    versions: list[MyVersion]
    """Newest first."""
    ladder: views.LadderEntry | None
    """Its place on its game's ladder, if it has one."""

    @property
    def newest(self) -> MyVersion:
        return self.versions[0]


def my_bots(session: Session, user: User, ladder_of: Callable[[str], views.Ladder]) -> list[MyBot]:
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
                    MyVersion(id=v.id, validation=views.validation(v), created_at=v.created_at, entry=v.entry)
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
