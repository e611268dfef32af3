"""Writes of accounts: users, their API tokens, passwords and browser sessions.

Every function of ``arena.store.repo`` takes an open session and leaves committing to the caller's
``Store.session()`` block, so that one unit of work is one transaction.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from arena.names import NEVER, is_reserved, skeleton
from arena.store.errors import AuthError, StoreError
from arena.store.models import User, WebSession, now


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def api_token() -> str:
    """A new API token: URL-safe, and never starting with ``-``, so that ``--token TOKEN`` on a
    command line reads as the option's value."""
    while (token := secrets.token_urlsafe(24)).startswith("-"):
        pass
    return token


def create_user(session: Session, name: str, admin: bool = False, system: bool = False) -> tuple[User, str]:
    """A new user and its API token (shown once; only its hash is stored). The name may be neither
    reserved (``system``: an admin's command may give out all but ``builtin``) nor a look-alike of
    another user's (``arena.names``: the same skeleton)."""
    if not name or len(name) > 64 or not name.isprintable() or name != name.strip():
        raise StoreError("a user name has 1 to 64 printable characters, with no space at either end")
    key = skeleton(name)
    if not key:
        raise StoreError("a user name needs a visible letter or digit")
    if is_reserved(name, NEVER) or (not system and is_reserved(name)):
        raise StoreError(f"the user name {name!r} is reserved: choose another")
    alike = session.scalar(select(User.name).where(User.name_key == key))
    if alike == name:
        raise StoreError(f"user {name!r} already exists")
    if alike is not None:
        raise StoreError(f"the user name {name!r} is too like the existing user {alike!r}: choose another")
    token = api_token()
    user = User(name=name, name_key=key, token_hash=hash_token(token), is_admin=admin)
    session.add(user)
    session.flush()  # the unique index on name_key refuses a look-alike made at the same moment
    return user, token


def authenticate(session: Session, token: str | None) -> User:
    if not token:
        raise AuthError("an API token is required (--token or ARENA_API_TOKEN)")
    user = session.scalar(select(User).where(User.token_hash == hash_token(token)))
    if user is None:
        raise AuthError("that API token is not valid")
    return user


def replace_token(session: Session, user: User) -> str:
    """A new API token for ``user``, replacing the old one (which stops working at once); shown once,
    only its hash is stored."""
    token = api_token()
    user.token_hash = hash_token(token)
    session.flush()
    return token


def set_password_hash(user: User, password_hash: str) -> None:
    """``user``'s web password, as its hash."""
    user.password_hash = password_hash


def open_web_session(session: Session, user: User, key: str, csrf: str, days: int) -> WebSession:
    """A new browser session of ``user`` for the cookie value ``key`` (only its hash is stored), valid
    ``days``; the sessions that have expired meanwhile go."""
    stamp = now()
    web = WebSession(
        key_hash=hash_token(key),
        user_id=user.id,
        csrf=csrf,
        created_at=stamp,
        expires_at=stamp + timedelta(days=days),
    )
    session.add(web)
    session.execute(delete(WebSession).where(WebSession.expires_at < stamp))
    session.flush()
    return web


def close_web_session(session: Session, key: str) -> None:
    """End the browser session of the cookie value ``key``."""
    session.execute(delete(WebSession).where(WebSession.key_hash == hash_token(key)))


def close_other_web_sessions(session: Session, user: User, keep: str | None) -> None:
    """End ``user``'s browser sessions but the one of the cookie value ``keep`` (all, without one)."""
    others = delete(WebSession).where(WebSession.user_id == user.id)
    if keep:
        others = others.where(WebSession.key_hash != hash_token(keep))
    session.execute(others)
    session.flush()


def lock(session: Session, user: User) -> None:
    """Take ``user``'s row for writing until the transaction ends (PostgreSQL; SQLite writes one at a
    time anyway): what the user starts is then counted and created one at a time."""
    session.execute(select(User.id).where(User.id == user.id).with_for_update())
