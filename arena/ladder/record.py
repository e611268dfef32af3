"""The ladder of record as matches land: an incremental step per landing match, a full refit now and then.

The scheduler service keeps one ``Follower`` per game, which polls the store every ``FOLLOW_S`` for
the game's rated matches (``arena.ratings.rated``) and moves the stored ladder by them with
``arena.ratings.fit.update``; the first look, every ``REFIT_EVERY`` landed matches, every
``REFIT_S``, and the look after a ``stale`` step refit in full (``arena.ratings.ladder.refit``). Both
write the same ``ratings`` rows and bump the ladder's revision. A match is found by when it finished,
looking back ``LOOKBACK``, and counted once.

Why: docs/matchmaking.md.
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.ratings.fit import stale, update
from arena.ratings.ladder import fit_game, last_refit, record_fit, write_ladder
from arena.ratings.model import Ladder
from arena.ratings.rated import rated_tournaments
from arena.ratings.results import RatingsError, Results
from arena.ratings.versions import versions
from arena.store.db import Store
from arena.store.models import now
from arena.store.queries.ratings import landed_since, outcomes_of_matches

log = logging.getLogger(__name__)

FOLLOW_S = 0.1
REFIT_EVERY = 20
REFIT_S = 600.0
LOOKBACK = timedelta(minutes=10)


class Follower:
    """One game's ladder of record, in memory and in the store."""

    def __init__(self, store: Store, game: str) -> None:
        self.store = store
        self.game = game
        self.ladder: Ladder | None = None
        self.index: dict[int, int] = {}
        """Bot version id -> its index in ``ladder``."""
        self.counted: set[int] = set()
        """The matches whose games ``ladder`` holds."""
        self.steps = 0
        """Landed matches taken in by steps since the last refit."""
        self.refitted = -REFIT_S
        self.fitted_at: datetime | None = None
        """The stamp of this follower's last refit in the store (``LadderState.fitted_at``)."""
        self.step_seconds = 0.0
        """How long the last incremental step took (read, update and write)."""

    def follow(self) -> list[int]:
        """Bring the stored ladder up to date; the ids of the matches that landed since the last look
        (all of them at a refit)."""
        with self.store.session() as session:
            stamp = last_refit(session, self.game)
            due = (
                stamp != self.fitted_at  # someone else refitted (or this follower has not yet)
                or self.steps >= REFIT_EVERY
                or time.monotonic() - self.refitted > REFIT_S
            )
            landed = [] if due else self._landed(session)
        if due or (landed and self.ladder is None):
            return self._refit(stamp)
        if landed:
            started = time.perf_counter()
            self._step(landed)
            self.step_seconds = time.perf_counter() - started
        return landed

    def refit_soon(self) -> None:
        """Refit at the next look (a tournament finished: its clusters deserve the full fit)."""
        self.steps = REFIT_EVERY

    def _refit(self, stamp: datetime | None) -> list[int]:
        """Refit, and write it unless another refit landed since ``stamp`` (its results are at least
        as new: this one is dropped, and the next look refits again)."""
        counted: set[int] = set()
        fitted = fit_game(self.store.engine, self.game, seen=counted)
        self.refitted = time.monotonic()
        if fitted is None:
            return []
        with self.store.session() as session:
            if last_refit(session, self.game, lock=True) != stamp:
                return []
            record_fit(session, self.game, fitted)
            session.flush()
            self.fitted_at = last_refit(session, self.game)
        before = self.counted
        self.ladder, self.counted, self.steps = fitted.ladder, counted, 0
        assert self.ladder.bot_ids is not None
        self.index = {version: bot for bot, version in enumerate(self.ladder.bot_ids.tolist())}
        return sorted(counted - before)

    def _landed(self, session: Session) -> list[int]:
        since = now() - LOOKBACK
        found = landed_since(session, rated_tournaments(session.connection(), self.game), since)
        return sorted(set(found) - self.counted)

    def _step(self, landed: list[int]) -> None:
        """Move the ladder by the landed matches' games, and write it unless another refit landed
        since this follower's last (then the next look refits)."""
        assert self.ladder is not None
        with self.store.session() as session:
            rows = outcomes_of_matches(session, landed)
        index = dict(self.index)
        seats = [[index.setdefault(version, len(index)) for version in row[0]] for row in rows]
        teams = get_game(self.game).teams
        ids = sorted(index, key=index.__getitem__)
        results = Results.from_games(
            seats,
            [row[1] for row in rows],
            teams=None if teams is None else [teams] * len(seats),
            bot_ids=ids,
        )
        known = versions(self.store.engine, self.game, ids)  # the new bots' anchors and lineage
        n = len(index)
        try:
            ladder = update(self.ladder, results, n, anchors=known.anchors[:n], lineage=known.lineage[:n])
        except (RatingsError, ArithmeticError) as error:  # a step the model cannot take: refit
            log.warning("ladder %s: an incremental step failed (%s); refitting", self.game, error)
            self.steps = REFIT_EVERY
            return
        with self.store.session() as session:
            if last_refit(session, self.game, lock=True) != self.fitted_at:
                return
            write_ladder(session, self.game, ladder, fitted=False)
        self.ladder, self.index = ladder, index
        self.counted.update(landed)
        self.steps = REFIT_EVERY if stale(ladder) else self.steps + len(landed)
