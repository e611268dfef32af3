"""Writes of bots: a bot's versions, stored as they are first named."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from arena.bots import BotLoadError, check_spec
from arena.names import skeleton
from arena.store.errors import StoreError
from arena.store.models import Bot, BotVersion, User


def bot_version(
    session: Session, game: str, name: str, spec: str, owner: User | None, entry: str = ""
) -> BotVersion:
    """The version ``spec`` of bot ``name`` (created if new; a bot's name belongs to its owner)."""
    bot = session.scalar(select(Bot).where(Bot.game == game, Bot.name == name))
    if bot is None:
        key = skeleton(name)
        alike = session.scalar(select(Bot).where(Bot.game == game, Bot.name_key == key))
        if alike is not None and alike.name == name:
            bot = alike  # stored meanwhile, by a transaction that committed after this one's first look
        elif alike is not None:
            raise StoreError(
                f"the {game} bot name {name!r} is too like the bot {alike.name!r}: choose another"
            )
        else:
            bot = Bot(game=game, name=name, name_key=key, owner_id=owner.id if owner else None)
            session.add(bot)
            session.flush()
    if bot.owner_id != (owner.id if owner else None):
        raise StoreError(f"the {game} bot name {name!r} is taken by another user")
    version = session.scalar(select(BotVersion).where(BotVersion.bot_id == bot.id, BotVersion.spec == spec))
    if version is None:
        version = BotVersion(bot_id=bot.id, spec=spec, entry=entry, validated=spec.startswith("builtin:"))
        session.add(version)
        session.flush()
    return version


def latest_version(session: Session, game: str, name: str) -> BotVersion:
    """A bot's newest validated version, by name; built-ins are named ``builtin:NAME``."""
    if name.startswith("builtin:"):
        try:
            check_spec(game, name)
        except BotLoadError as error:
            raise StoreError(str(error)) from None
        return bot_version(session, game, name, name, None)
    bot = session.scalar(select(Bot).where(Bot.game == game, Bot.name == name))
    if bot is None:
        raise StoreError(f"no {game} bot named {name!r}")
    validated = [version for version in bot.versions if version.validated]
    if not validated:
        raise StoreError(f"bot {name!r} has no version that passed validation")
    return validated[-1]


def store_code(version: BotVersion, code_blob: str) -> None:
    """A submitted version's code (its blob's digest), to be validated unless it passed before."""
    version.code_blob = code_blob
    version.validating = not version.validated


def end_validation(version: BotVersion, log: str, passed: bool | None = None) -> None:
    """A version's validation is over (``passed``, if it ran: None leaves the verdict as it was),
    with its ``log``."""
    if passed is not None:
        version.validated = passed
    version.validating = False
    version.validation_log = log


def set_open_to_others(bot: Bot, is_open: bool) -> None:
    """Open the bot to others (they may challenge it and seat it against themselves), or close it."""
    bot.open_to_others = is_open
