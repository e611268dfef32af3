"""``arena db`` and ``arena user``: the database's schema, and accounts with their API tokens and
passwords."""

from __future__ import annotations

import argparse
import getpass
import os
import sys

from arena.cli.services import current_user, open_store, uses_store
from arena.store.db import Store, data_home, default_url
from arena.store.errors import StoreError
from arena.store.queries.accounts import user_count, user_named
from arena.store.repo import create_user
from arena.web.security import set_password


@uses_store
def cmd_db_upgrade(args: argparse.Namespace) -> int:
    store = Store(args.db or default_url(data_home()))
    store.upgrade()
    print(f"database at the newest schema: {store.engine.url.render_as_string(hide_password=True)}")
    return 0


@uses_store
def cmd_user_create(args: argparse.Namespace) -> int:
    """Admins create users; on a database with no user yet (a new PostgreSQL store) the first user
    needs no token and is made an admin."""
    store = open_store(args)
    with store.session() as session:
        first = not store.url.startswith("sqlite") and user_count(session) == 0
    if not first and not current_user(store, args).is_admin:
        raise StoreError("only an admin may create users")
    with store.session() as session:
        user, token = create_user(session, args.name, admin=args.admin or first, system=True)
    role = "admin " if user.is_admin else ""
    print(f"{role}user {user.name} created; API token (shown once, keep it secret):\n{token}")
    return 0


@uses_store
def cmd_user_password(args: argparse.Namespace) -> int:
    store = open_store(args)
    me = current_user(store, args)
    if me.name != args.name and not me.is_admin:
        raise StoreError("only an admin may set another user's password")
    password = read_password()
    with store.session() as session:
        user = user_named(session, args.name)
        if user is None:
            raise StoreError(f"no user {args.name!r}")
        set_password(user, password)
    print(f"web password of {args.name} set")
    return 0


def read_password() -> str:
    if password := os.environ.get("ARENA_PASSWORD"):
        return password
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("new password: ")
    if getpass.getpass("again: ") != first:
        raise StoreError("the two passwords differ")
    return first
