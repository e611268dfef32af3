"""Passwords, browser sessions and CSRF tokens for the web app.

Passwords are hashed with scrypt (``hashlib``; n=2**14, r=8, p=1, 16-byte salt); a log-in takes one
scrypt whether or not its user exists. A signed-in browser
holds a random session key in an HttpOnly, SameSite=Lax cookie; the store keeps only its SHA-256
(``web_sessions``) with the session's CSRF token, which every form posted by the session must send
back. Forms shown before signing in (log in, sign up) use a double-submit token: a random cookie that
the form repeats.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from functools import cache

from sqlalchemy.orm import Session

from arena.store.errors import AuthError, StoreError
from arena.store.models import User, WebSession, now
from arena.store.queries.accounts import user_named, web_session
from arena.store.repo.accounts import close_web_session, open_web_session, set_password_hash

SESSION_COOKIE = "arena_session"
ANON_CSRF_COOKIE = "arena_csrf"
SESSION_DAYS = 14
MIN_PASSWORD = 8
_SCRYPT = {"n": 2**14, "r": 8, "p": 1}


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, dklen=32, **_SCRYPT)
    return f"scrypt${_SCRYPT['n']}${_SCRYPT['r']}${_SCRYPT['p']}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    try:
        kind, n, r, p, salt, digest = stored.split("$")
    except ValueError:
        return False
    if kind != "scrypt":
        return False
    computed = hashlib.scrypt(
        password.encode(), salt=bytes.fromhex(salt), n=int(n), r=int(r), p=int(p), dklen=len(digest) // 2
    )
    return hmac.compare_digest(computed.hex(), digest)


@cache
def _dummy_hash() -> str:
    """A hash of a random password, of the same cost as the real ones."""
    return hash_password(secrets.token_urlsafe(16))


def set_password(user: User, password: str) -> None:
    if len(password) < MIN_PASSWORD:
        raise StoreError(f"a password needs at least {MIN_PASSWORD} characters")
    set_password_hash(user, hash_password(password))


def log_in(session: Session, name: str, password: str) -> tuple[str, WebSession]:
    """A new browser session for ``name``: the cookie value and the stored session."""
    user = user_named(session, name)
    # As long whether the user exists or not (a quick "no" would tell that it does not): a name
    # with no password to check is checked against a dummy hash, and refused all the same.
    stored = user.password_hash if user is not None and user.password_hash else _dummy_hash()
    if not check_password(password, stored) or user is None or not user.password_hash:
        raise AuthError("wrong user name or password")
    key = secrets.token_urlsafe(32)
    return key, open_web_session(session, user, key, secrets.token_urlsafe(32), SESSION_DAYS)


def session_for(session: Session, key: str | None) -> WebSession | None:
    """The live browser session for a cookie value, if any."""
    if not key:
        return None
    web = web_session(session, key)
    if web is None or web.expires_at < now():
        return None
    return web


def log_out(session: Session, key: str | None) -> None:
    if key:
        close_web_session(session, key)


def same_token(sent: str | None, expected: str | None) -> bool:
    return bool(sent) and bool(expected) and hmac.compare_digest(str(sent), str(expected))
