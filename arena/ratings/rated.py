"""What is rated: the one definition of the play that may move a game's ladder of record.

The ladder is what bot authors compete for, so only play that no author arranged may move it. A match
is *rated* when it is done and its tournament is rated and keeps the rated terms (``TERMS``):

* the platform scheduled it: the living ladder's standing tournament of the game, or a tournament an
  admin marked rated (``Tournament.rated``);
* its seed was drawn by the platform: nobody chose it, so no bot can derive the deals from it;
* it plays the game's default config, at the game's current engine version.

Everything else is *unrated*: its tournament keeps its own standings, labelled so, and moves no ladder
(fit, live Elo, matchmaking, likelihood of superiority). The scheduler, the fit, the live Elo, the web
app and the CLI all ask this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from sqlalchemy import Connection

from arena.games.base import BadConfig
from arena.games.registry import get_game
from arena.ratings.results import IntArray
from arena.store.models import Tournament
from arena.store.queries.ratings import done_matches, rated_tournament_terms

TERMS = (
    "scheduled by the platform: the living ladder, or a tournament an admin marked rated",
    "a seed nobody chose (drawn by the platform, secret until the match is over)",
    "the game's default config",
    "the game's current engine version",
)
"""The rated terms, as a person reads them (``arena ladder GAME``, the ladder page, the README)."""


def refusals(game: str, config: Mapping[str, Any], game_version: int, *, seed_chosen: bool) -> list[str]:
    """Why a tournament of ``game`` with these terms cannot be rated (empty: it can)."""
    engine = get_game(game)
    reasons = []
    if seed_chosen:
        reasons.append("its seed was chosen (a bot that knows it knows every deal)")
    try:
        default = engine.config_type.from_dict(dict(config)) == engine.config_type()
    except BadConfig:
        default = False
    if not default:
        reasons.append(f"its config is not {game}'s default")
    if game_version != engine.version:
        reasons.append(f"it plays {game}@{game_version}, not the current {engine.game_id}")
    return reasons


def is_rated(tournament: Tournament) -> bool:
    """Whether the tournament's done matches count on its game's ladder."""
    return tournament.rated and not refusals(
        tournament.game, tournament.config, tournament.game_version, seed_chosen=tournament.seed_chosen
    )


def rated_tournaments(connection: Connection, game: str) -> list[int]:
    """The ids of ``game``'s rated tournaments (few: the standing ladder and those an admin marked)."""
    return [
        tournament
        for tournament, config, version, seed_chosen in rated_tournament_terms(connection, game)
        if not refusals(game, config, version, seed_chosen=seed_chosen)
    ]


def rated_matches(connection: Connection, game: str) -> IntArray:
    """The ids of ``game``'s rated matches (done, of a rated tournament), ascending."""
    tournaments = rated_tournaments(connection, game)
    if not tournaments:
        return np.zeros(0, dtype=np.int64)
    return np.sort(np.fromiter(done_matches(connection, tournaments), dtype=np.int64))
