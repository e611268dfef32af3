"""The living ladder's matches in the store: one standing tournament per game, grown a match at a time.

Every game has one tournament of kind ``ladder`` per game version (a new engine version starts a
new one: a match replays only on the version it was played on), created when its first ladder match
is. The scheduler adds each match the matchmaker picks (``add_match``) with the next index and a
seed derived from the tournament's secret seed, as a tournament's own matches are, and the match
runs like any other (``arena.tournament.play``). Its shape (seats, games, duplicate legs) is
``arena.ladder.shape``'s, which validation plays too.

The entrants are the newest validated version of every submitted bot of the game, and, once there
is at least one, the platform's built-in bots, which give a lone bot opponents and anchor the scale.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.ladder.shape import LADDER_GAMES
from arena.runner.deals import derive_seed, new_seed
from arena.store.models import Match, Tournament
from arena.store.queries.bots import owners_of
from arena.store.queries.ratings import current_versions
from arena.store.queries.tournaments import first_of_kind
from arena.store.repo import bot_version
from arena.store.repo.ratings import ensure_ratings
from arena.store.repo.tournaments import append_match, create_tournament

KIND = "ladder"


@dataclass(frozen=True)
class Entrant:
    version_id: int
    owner: int | None
    """The owner's user id; None for the platform's built-ins (one owner between them)."""


def standing_tournament(session: Session, game: str) -> Tournament:
    """The ladder's tournament of ``game`` at its current version, created if missing."""
    engine = get_game(game)
    found = first_of_kind(session, KIND, engine.name, engine.version)
    if found is not None:
        return found
    return create_tournament(
        session,
        game=engine.name,
        game_version=engine.version,
        config=engine.config_type().to_dict(),
        kind=KIND,
        entrants=[],
        plans=[],
        seeds=[],
        games_per_match=LADDER_GAMES,
        duplicate=True,
        seed=new_seed(),
        seed_chosen=False,
        rated=True,
        creator=None,
    )


def entrants(session: Session, game: str) -> list[Entrant]:
    """Who is on ``game``'s ladder now (see the module docstring), by version id."""
    current = current_versions(session, game)
    owners = owners_of(session, current)
    submitted = [Entrant(version, owners[bot]) for bot, version in sorted(current.items()) if owners[bot]]
    if not submitted:
        return []
    engine = get_game(game)
    builtins = [
        bot_version(session, engine.name, f"builtin:{b}", f"builtin:{b}", None) for b in engine.builtin_bots
    ]
    return [*submitted, *(Entrant(version.id, None) for version in builtins)]


def add_match(
    session: Session, tournament: Tournament, seating: Sequence[int], seed: int | None = None
) -> Match:
    """A pending ladder match of these bot versions (in starting seat order; a kozel team's bot
    sits in both of its side's seats), its seed ``seed`` or else derived from the tournament's."""
    match = append_match(
        session,
        tournament,
        seating,
        lambda index: derive_seed(tournament.seed, "match", KIND, index) if seed is None else seed,
    )
    ensure_ratings(session, tournament.game, seating)
    session.flush()
    return match
