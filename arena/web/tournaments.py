"""What the web app takes in about tournaments (the API's request body, ids in paths) and cancelling.

The request's bounds are the tournament limits (``arena.tournament.limits``) as pydantic constraints,
so that OpenAPI documents them and a request over one is refused (422) before anything is built.
The creator of a tournament or an admin may cancel it: every match of it not yet done becomes
``void`` at once, and matches already done stay done.

In full: docs/web.md.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import HTTPException, Path
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt, StringConstraints
from sqlalchemy.orm import Session

from arena.ladder.standing import KIND as LADDER
from arena.runner.terms import GAMES_PER_MATCH
from arena.store.models import MatchStatus, Tournament, User
from arena.store.queries.tournaments import has_match_in
from arena.store.repo.tournaments import void_matches
from arena.tournament import limits

MAX_ID = 2**31 - 1
"""The store's ids are INTEGER columns: 32 bits on PostgreSQL. A larger id names nothing."""

Id = Annotated[int, Path(ge=1, le=MAX_ID)]
"""An id in a path: a whole number the store's columns can hold (larger ones are refused, 422)."""
Index = Annotated[int, Path(ge=0, le=MAX_ID)]
"""A seat or a game of a match, from 0."""

UNFINISHED = (MatchStatus.PENDING, MatchStatus.RUNNING, MatchStatus.FAILED_INFRASTRUCTURE)
"""What cancelling voids: failed matches too, which ``arena tournament retry`` would send back."""

BotName = Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_BOT_NAME)]


class TournamentRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: Annotated[str, StringConstraints(min_length=1, max_length=32)]
    bots: Annotated[list[BotName], Field(max_length=limits.MAX_BOTS)]
    """Bot names, or ``builtin:NAME``: at least two (fewer is refused with 400, saying so)."""
    games_per_match: Annotated[
        StrictInt,
        Field(
            ge=1,
            le=limits.MAX_GAMES_PER_MATCH,
            description=f"Games per match, times the config's action_cap (every game stops there), at most "
            f"{limits.MAX_MATCH_DECISIONS:,} decisions a match. Each match plays at most "
            f"{limits.MAX_MATCH_WALL_S / 60:g} minutes and writes at most "
            f"{limits.MAX_MATCH_REPLAY_BYTES // 2**20} MiB of replay: past either cap it is stopped, "
            "its status failed_infrastructure and its error naming the cap (no result, counted against "
            "no bot).",
        ),
    ] = GAMES_PER_MATCH
    rounds: Annotated[StrictInt, Field(ge=1, le=limits.MAX_ROUNDS)] = 1
    kind: Annotated[str, StringConstraints(max_length=32)] = "round_robin"
    seats: Annotated[StrictInt, Field(ge=1, le=limits.MAX_SEATS)] | None = None
    duplicate: StrictBool = False
    seed: Annotated[StrictInt, Field(ge=0, le=limits.MAX_SEED)] | None = None
    """Omit it: a secret seed is drawn. A chosen seed can be guessed by a bot."""
    config: Annotated[dict[str, Any], Field(max_length=limits.MAX_CONFIG_FIELDS)] = {}
    rated: StrictBool = False
    """Admins only: its matches move the game's ladder (``arena.ratings.rated``), which needs a secret
    seed (no ``seed``) and the default config. Any other tournament is unrated: its own standings."""


def cancel(session: Session, tournament_id: int, user: User) -> int:
    """Cancel the tournament for ``user`` (its creator, or an admin): its unfinished matches void.
    How many were voided; ``HTTPException`` 404, 403 or 409 if it may not be."""
    tournament = session.get(Tournament, tournament_id)
    if tournament is None:
        raise HTTPException(404, f"no tournament {tournament_id}")
    if not user.is_admin and tournament.created_by != user.id:
        raise HTTPException(403, "only the tournament's creator or an admin may cancel it")
    if tournament.kind == LADDER:
        raise HTTPException(409, "the ladder's standing tournament cannot be cancelled")
    voided = void_matches(session, tournament_id, UNFINISHED, f"cancelled by {user.name}")
    if not voided and not has_match_in(session, tournament_id, MatchStatus.VOID):
        raise HTTPException(409, f"tournament {tournament_id} is finished: there is nothing to cancel")
    return voided
