"""Reaching the store from the command line: the store the commands use and who the caller is,
and database errors as one line.

On the embedded default (SQLite in ``$ARENA_HOME``) the schema is brought up to date on first
use and a local admin account is created, its token kept in ``$ARENA_HOME/api-token`` (mode
0600) and used when no token is given. On PostgreSQL run ``arena db upgrade`` first and pass a
token (``--token`` or ``ARENA_API_TOKEN``).
"""

from __future__ import annotations

import argparse
import functools
import os
from collections.abc import Callable

from arena.store.db import Store, data_home, database_errors, default_url
from arena.store.errors import AuthError
from arena.store.models import User
from arena.store.queries.accounts import user_named
from arena.store.repo import authenticate, create_user

LOCAL_ADMIN = "local"


def open_store(args: argparse.Namespace) -> Store:
    store = Store(args.db or default_url(data_home()))
    if store.url.startswith("sqlite"):
        store.upgrade()
    return store


def current_user(store: Store, args: argparse.Namespace) -> User:
    """The user named by the token; on the embedded default without a token, the local admin."""
    token = args.token or os.environ.get("ARENA_API_TOKEN")
    token_file = data_home() / "api-token"
    if not token and store.url.startswith("sqlite"):
        if token_file.exists():
            token = token_file.read_text().strip()
        else:
            with store.session() as session:
                if user_named(session, LOCAL_ADMIN) is not None:
                    raise AuthError(
                        "an API token is required (--token or ARENA_API_TOKEN): this store's local "
                        f"admin was made from another data folder than {data_home()}, whose api-token "
                        "file holds its token"
                    )
                _, token = create_user(session, LOCAL_ADMIN, admin=True, system=True)
            token_file.parent.mkdir(parents=True, exist_ok=True)  # with --db, the store may be elsewhere
            token_file.write_text(token + "\n")
            token_file.chmod(0o600)
    with store.session() as session:
        user = authenticate(session, token)
        session.expunge(user)
        return user


def uses_store(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``handler``, with the database's errors said in one line (``database_errors``)."""

    @functools.wraps(handler)
    def run(args: argparse.Namespace) -> int:
        with database_errors():
            return handler(args)

    return run
