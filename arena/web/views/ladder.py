"""A game's ladder: its bots by rating, with what a gap in Elo means in the game."""

from __future__ import annotations

import math

from pydantic import BaseModel
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.ratings.ladder import ladder_rows
from arena.ratings.model import ELO_PER_NAT
from arena.store.queries.ladder import ladder_state
from arena.web.views.common import Timestamp


class LadderEntry(BaseModel):
    rank: int | None
    """Place on the ladder (1 best); None for a bot not connected to the main pool (``connected``) or
    not fitted yet (``fitted``)."""
    bot_id: int
    version_id: int
    bot: str
    owner: str
    elo: float
    """The batch fit's Elo (the ladder of record), or the live Elo of a bot not fitted yet."""
    halfwidth: float | None
    """Half-width of the 95% interval; None before the bot's first fit."""
    games: int
    provisional: bool
    superiority: float | None
    """Likelihood that this bot is stronger than the next one on the ladder."""
    live_elo: float
    live_games: int
    connected: bool
    """A chain of games links the bot to the main pool. If not, it has no rank, and its Elo and
    interval do not compare with the ranked bots' (the ladder shows it apart, "not yet connected")."""
    fitted: bool
    """A fit has placed it. If not, it has only a live Elo from its first rated matches, and no rank
    or interval yet (the ladder shows it apart, "not yet fitted")."""
    flag: str
    """The last full refit's consistency flag, or "": "inconsistent results against <bot>: ..." or
    "... between its first N games ... and its next M ...", when its results against one opponent, or
    in the two halves of its games, depart from its rating by more than 3 standard errors (more for a
    bot with many opponents: see ``arena.ratings.consistency``). Its rating is then not one number."""


class EloGap(BaseModel):
    """What a gap of ``elo`` points between two bots means in a game, under the ratings' model
    (``arena.ratings.model``)."""

    elo: float
    probability: float
    """That the higher-rated bot finishes ahead of the other (in a team game: that its team wins a
    decisive game against the other's)."""
    meaning: str


GAP = 100.0
"""The gap the ladder page explains."""


def elo_gap(game: str, gap: float = GAP) -> EloGap:
    """The model's reading of a ``gap``: finish orders are Plackett-Luce on the units' log-strengths
    (``gap / ELO_PER_NAT`` apart for two bots), so any two units finish in a given order with the
    logistic probability of their difference, whoever else plays. In a team game a unit is a team,
    the sum of its seats: on the ladder one bot holds all the seats of its side, so two teams differ
    by the gap times the seats of a side."""
    teams = get_game(game).teams
    seats = teams.count(teams[0]) if teams else 1
    probability = 1.0 / (1.0 + math.exp(-seats * gap / ELO_PER_NAT))
    apart = f"Between two bots {gap:.0f} Elo apart,"
    if teams:
        meaning = (
            f"{apart} a team of the higher-rated wins {probability:.0%} of decisive games against a team "
            f"of the other: a team is one bot in {seats} seats, and the model adds up a team's seats, so "
            f"the two teams are {seats * gap:.0f} Elo apart."
        )
    else:
        meaning = (
            f"{apart} the higher-rated finishes ahead of the other in {probability:.0%} of the games they "
            f"both play and do not tie, however many others sit at the table (in a game of two: odds of "
            f"{probability / (1 - probability):.1f} to 1)."
        )
    return EloGap(elo=gap, probability=round(probability, 4), meaning=meaning)


class Ladder(BaseModel):
    game: str
    title: str
    revision: int
    """Bumped by every change to the game's ratings: ``GET /ladders/{game}/revision`` tells whether
    the ladder moved since it was read."""
    fitted_at: Timestamp | None
    fit_games: int
    elo_gap: EloGap
    """What a gap of 100 Elo means in this game."""
    entries: list[LadderEntry]
    """Ranked bots (best first), then the bots not fitted yet, then those not yet connected."""


class LadderRevision(BaseModel):
    game: str
    revision: int


def ladder(session: Session, game_name: str) -> Ladder:
    game = get_game(game_name)
    state = ladder_state(session, game.name)
    return Ladder(
        game=game.name,
        title=game.title,
        revision=state.revision if state else 0,
        fitted_at=state.fitted_at if state else None,
        fit_games=state.fit_games if state else 0,
        elo_gap=elo_gap(game.name),
        entries=[
            LadderEntry(
                rank=row.rank,
                bot_id=row.bot_id,
                version_id=row.version_id,
                bot=row.bot,
                owner=row.owner,
                elo=round(row.elo, 1),
                halfwidth=None if row.halfwidth is None else round(row.halfwidth, 1),
                games=row.games,
                provisional=row.provisional,
                superiority=None if row.superiority is None else round(row.superiority, 4),
                live_elo=round(row.live_elo, 1),
                live_games=row.live_games,
                connected=row.connected,
                fitted=row.fitted,
                flag=row.flag,
            )
            for row in ladder_rows(session, game.name)
        ],
    )
