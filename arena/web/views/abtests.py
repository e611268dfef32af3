"""A/B tests in the web app: starting one, and a test as its page and the API show it.

One is started from the API or the bot page's form; a test shows the LLR after every landed match.
"""

from __future__ import annotations

from typing import Annotated, Self

from fastapi import HTTPException
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, ValidationError, model_validator
from sqlalchemy.orm import Session

from arena.ratings import sprt
from arena.store.db import Store, once_more_on_conflict
from arena.store.models import AbTest, User
from arena.tournament import abtest, limits, quota
from arena.web.tournaments import BotName
from arena.web.views.common import NotFound
from arena.web.views.games import known_game

Elo = Annotated[StrictFloat | StrictInt, Field(ge=-1000, le=1000)]
Rate = Annotated[StrictFloat, Field(ge=0.0001, le=0.5)]


class AbTestRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    game: Annotated[str, Field(min_length=1, max_length=32)]
    new: BotName
    """The bot under test: ``builtin:NAME``, a bot's name (its newest validated version) or
    ``NAME@VERSION`` (a version id); your own, or open to others."""
    old: BotName
    """The bot to beat, named the same way."""
    elo0: Elo = 0.0
    """H0: NEW is this much better (logistic Elo)."""
    elo1: Elo = 5.0
    """H1: NEW is this much better; above ``elo0``."""
    alpha: Rate = 0.05
    beta: Rate = 0.05
    max_games: Annotated[StrictInt, Field(ge=1, le=limits.MAX_TEST_GAMES)] = limits.DEFAULT_TEST_GAMES
    games_per_match: Annotated[StrictInt, Field(ge=1, le=abtest.MAX_MATCH_GAMES)] = 12
    """A multiple of the seats (2; kozel 4; with a panel one more than the panel): each deal is
    played in every seating."""
    panel: Annotated[list[BotName], Field(max_length=7)] = []
    """Free-for-all games: opponents who play NEW's matches and, seated alike on the same deals,
    OLD's; empty: NEW against OLD."""

    @model_validator(mode="after")
    def _hypotheses(self) -> Self:
        self.hypotheses()  # SprtError, a ValueError: answered 422 naming the field
        return self

    def hypotheses(self) -> sprt.Hypotheses:
        return sprt.Hypotheses(float(self.elo0), float(self.elo1), self.alpha, self.beta)

    def spec(self) -> abtest.TestSpec:
        return abtest.TestSpec(
            game=self.game,
            new=self.new,
            old=self.old,
            hypotheses=self.hypotheses(),
            max_games=self.max_games,
            games_per_match=self.games_per_match,
            panel=tuple(self.panel),
        )


class LlrPoint(BaseModel):
    games: int
    llr: float


class AbTestView(BaseModel):
    """An A/B test: its bots, hypotheses, where its SPRT stands and its verdict."""

    id: int
    tournament_id: int
    game: str
    new: str
    new_version: int
    old: str
    old_version: int
    panel: list[str]
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    verdict: str
    """"" while it runs; better, worse, no difference, cap reached, cancelled, or why it stopped."""
    running: bool
    games: int
    deals: int
    llr: float
    lower: float
    """The LLR at which H0 is accepted (worse, or no difference)."""
    upper: float
    """The LLR at which H1 is accepted (better)."""
    elo: float | None
    """NEW's Elo difference over OLD, with its 95% interval; None before any deal."""
    elo_low: float | None
    elo_high: float | None
    history: list[LlrPoint]
    """The LLR after each landed match."""


def request_from_form(
    game: str, new: str, old: str, elo0: float, elo1: float, max_games: int
) -> AbTestRequest:
    """The bot page's form as a request; 400 naming what is wrong with it."""
    try:
        return AbTestRequest(game=game, new=new, old=old, elo0=elo0, elo1=elo1, max_games=max_games)
    except ValidationError as error:
        problems = "; ".join(str(problem["msg"]) for problem in error.errors())
        raise HTTPException(400, f"cannot start this A/B test: {problems}") from None


def start(store: Store, request_session: Session, user: User, request: AbTestRequest) -> int:
    """Create ``user``'s test (the scheduler plays it); its id. 404 for an unknown game, 400 or 403
    for bots that cannot be tested, 429 over the quota of tournaments."""
    request_session.commit()  # hold no connection while creating in another session
    spec = request.spec()
    known_game(spec.game)

    def create() -> int:
        with store.session() as session:
            try:
                return abtest.create(session, spec, session.merge(user)).id
            except quota.QuotaError as error:
                raise HTTPException(429, str(error)) from None

    return once_more_on_conflict(create)  # a built-in may be stored by a concurrent request first


def _number(value: float) -> float | None:
    return None if value != value else value  # nan before any deal


def abtest_view(session: Session, test_id: int) -> AbTestView:
    test = session.get(AbTest, test_id)
    if test is None:
        raise NotFound(f"no A/B test {test_id}")
    report = abtest.report(session, test)
    state, h = report.state, report.hypotheses
    return AbTestView(
        id=test.id,
        tournament_id=report.tournament_id,
        game=report.game,
        new=report.new,
        new_version=report.new_version,
        old=report.old,
        old_version=report.old_version,
        panel=report.panel,
        elo0=h.elo0,
        elo1=h.elo1,
        alpha=h.alpha,
        beta=h.beta,
        max_games=report.max_games,
        verdict=report.verdict,
        running=not report.verdict,
        games=state.games,
        deals=state.clusters,
        llr=state.llr,
        lower=state.lower,
        upper=state.upper,
        elo=_number(state.elo),
        elo_low=_number(state.elo_low),
        elo_high=_number(state.elo_high),
        history=[LlrPoint(games=games, llr=llr) for games, llr in report.history],
    )
