"""The arguments of ``arena db`` and ``arena user``; what they do is ``arena.cli.accounts``."""

from __future__ import annotations

import argparse

from arena.cli.args import later, with_store


def register(name: str, parser: argparse.ArgumentParser) -> None:
    if name == "db":
        db_commands = parser.add_subparsers(dest="db_command", required=True, metavar="ACTION")
        upgrade = db_commands.add_parser("upgrade", help="create or migrate the schema to the newest version")
        with_store(upgrade).set_defaults(handler=later("accounts", "cmd_db_upgrade"))
        return
    user_commands = parser.add_subparsers(dest="user_command", required=True, metavar="ACTION")
    create = with_store(user_commands.add_parser("create", help="create a user (admins only)"))
    create.add_argument("name")
    create.add_argument("--admin", action="store_true")
    create.set_defaults(handler=later("accounts", "cmd_user_create"))
    password = with_store(
        user_commands.add_parser(
            "password",
            help="set a user's web password (yours, or anyone's as an admin)",
            description="The password comes from $ARENA_PASSWORD, else from standard input when it is not "
            "a terminal, else it is asked for twice.",
        )
    )
    password.add_argument("name")
    password.set_defaults(handler=later("accounts", "cmd_user_password"))
