"""Reads of accounts: a user by name, how many users there are, a browser session by its cookie."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from arena.store.models import User, WebSession
from arena.store.repo.accounts import hash_token


def user_named(session: Session, name: str) -> User | None:
    return session.scalar(select(User).where(User.name == name))


def web_session(session: Session, key: str) -> WebSession | None:
    """The browser session of the cookie value ``key``, expired or not."""
    return session.scalar(select(WebSession).where(WebSession.key_hash == hash_token(key)))


def user_count(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(User)) or 0
