"""Challenges: one match of a bot against a chosen bot of its game, asked for by a user, played at once.

Who may use a bot in a challenge (either side), or seat it against themselves: its owner, and anyone
when the bot is open to others (``Bot.open_to_others``: the built-ins are, a user's bot once its
owner opens it). A challenge is a tournament of its own kind (``quota.CHALLENGE``) with one match:
the game's default config, duplicate deals (every deal in every seating, so a number of games that is
a multiple of the seats), a secret seed, never rated (``arena.ratings.rated``), so it moves no
ladder. Its match goes ahead of the living ladder's, as every tournament's does, and a user has at
most ``quota.MAX_CHALLENGES`` unfinished at a time. Challenges are public, as tournaments are.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.store.errors import NotAllowed, StoreError
from arena.store.models import Bot, Tournament, User
from arena.store.queries.bots import bot_named
from arena.store.repo.accounts import lock
from arena.store.repo.bots import latest_version, set_open_to_others
from arena.store.repo.tournaments import set_kind
from arena.tournament import quota
from arena.tournament.service import TournamentSpec, create

MAX_GAMES = 100
"""Games in one challenge: at most 100, each deal played in every seating."""
DEFAULT_GAMES = 20
"""A multiple of every game's seats (2, or kozel's 4)."""


class UnknownBot(StoreError):
    """No bot with that id."""


def may_use(user: User | None, bot: Bot) -> bool:
    """Whether ``user`` may challenge with or against ``bot``, or seat it against themselves."""
    return bot.open_to_others or (user is not None and bot.owner_id == user.id)


def usable_bot(session: Session, user: User | None, bot_id: int) -> Bot:
    """The bot ``bot_id`` if ``user`` may use it as a player or opponent; ``UnknownBot`` or
    ``NotAllowed`` saying why not."""
    bot = session.get(Bot, bot_id)
    if bot is None:
        raise UnknownBot(f"no bot {bot_id}")
    if not may_use(user, bot):
        raise NotAllowed(f"{bot.name} is not open to others: only its owner may challenge with or against it")
    return bot


def seats(game: str) -> int:
    """A challenge's seats: two, or a team game's table (each bot holds one side)."""
    teams = get_game(game).teams
    return len(teams) if teams else 2


def check_games(game: str, games: int) -> None:
    """``StoreError`` unless ``games`` is a number of games a challenge of ``game`` may play."""
    table = seats(game)
    if not 1 <= games <= MAX_GAMES or games % table:
        raise StoreError(
            f"a {game} challenge plays every deal in each of its {table} seatings: "
            f"choose a multiple of {table} games from {table} to {MAX_GAMES - MAX_GAMES % table}, not {games}"
        )


def opponent_id(session: Session, game: str, opponent: int | str) -> int:
    """The id of the bot ``opponent`` names: an id, or a bot name of ``game`` (``builtin:NAME`` for
    a built-in, stored the first time it plays); ``UnknownBot`` if there is none."""
    if isinstance(opponent, int):
        return opponent
    if opponent.startswith("builtin:"):
        return latest_version(session, game, opponent).bot_id
    found = bot_named(session, game, opponent)
    if found is None:
        raise UnknownBot(f"no {game} bot named {opponent!r}")
    return found.id


def create_challenge(
    session: Session, user: User, bot_id: int, opponent: int | str, games: int
) -> Tournament:
    """Create ``user``'s challenge of bot ``bot_id`` against ``opponent`` (an id, or a name of the
    bot's game): its tournament, with its one match pending. ``StoreError`` (``UnknownBot``,
    ``NotAllowed``) or ``quota.QuotaError`` naming what is wrong."""
    bot = usable_bot(session, user, bot_id)
    other = usable_bot(session, user, opponent_id(session, bot.game, opponent))
    if other.game != bot.game:
        raise StoreError(f"{other.name} plays {other.game}, not {bot.game}: choose a {bot.game} bot")
    if other.id == bot.id:
        raise StoreError(f"{bot.name} cannot challenge itself: choose another opponent")
    check_games(bot.game, games)
    # one creation at a time per user (PostgreSQL; SQLite writes one at a time anyway): two at once
    # would both count the same unfinished challenges and pass the quota together
    lock(session, user)
    quota.check_room(session, user, challenge=True)
    spec = TournamentSpec(game=bot.game, bots=[bot.name, other.name], games_per_match=games, duplicate=True)
    tournament = create(session, spec, user).tournament
    set_kind(tournament, quota.CHALLENGE)
    return tournament


def set_open(session: Session, user: User, bot_id: int, open_to_others: bool) -> Bot:
    """The owner opens their bot to others, or closes it; ``UnknownBot`` or ``NotAllowed``."""
    bot = session.get(Bot, bot_id)
    if bot is None:
        raise UnknownBot(f"no bot {bot_id}")
    if bot.owner_id is None:
        raise NotAllowed("the built-in bots are always open to others")
    if bot.owner_id != user.id:
        raise NotAllowed(f"only {bot.name}'s owner may open or close it")
    set_open_to_others(bot, open_to_others)
    return bot
