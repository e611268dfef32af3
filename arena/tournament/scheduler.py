"""The scheduler: the one process that decides which match runs next, and sees every match through.

Each step it expires the leases nobody renews and fills the executor's room with pending matches,
fairly between tournaments (the fewest in play first, then the one served longest ago); room left
goes to the living ladder (``arena.ladder.feeder``), and the A/B tests (``arena.tournament.abtest``)
stop or add matches. It runs as the service (``arena scheduler``, and ``arena serve`` on the embedded
default), which holds the store's ``scheduler`` role on a lease, or as a stand-in for one tournament
(``arena tournament run ID``) that schedules it itself while no service holds the role. Every step
that needs the store rides out an outage (``ride_out``).

In full: docs/scheduling.md.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy.orm import Session

from arena.ladder.feeder import Feeder
from arena.ladder.standing import KIND as LADDER
from arena.store import roles
from arena.store.db import Store
from arena.store.models import MatchStatus
from arena.store.patience import ride_out
from arena.store.queries.tournaments import progress, unfinished_matches
from arena.store.repo.matches import expire_leases, give_back
from arena.tournament import abtest
from arena.tournament.executors import Executor
from arena.tournament.play import LEASE, MAX_ATTEMPTS, worker_name

log = logging.getLogger(__name__)

ROLE = "scheduler"
ROLE_LEASE = timedelta(seconds=15)
"""How long a scheduler holds its role without renewing it: a standby takes over after that."""
ROLE_RENEW_S = 3.0
"""How often a service renews its role, or, standing by, looks whether it may take it over."""
NO_WORKER_S = 5.0
"""How long matches may wait with none running before the executor is asked what is wrong."""
POLL_S = 0.5

Progress = Callable[[int, int], None]
"""Called with (matches finished, matches in the tournament)."""


@dataclass(frozen=True)
class Survey:
    """What one step reads from the store."""

    standby: roles.Holder | None
    """The service that holds the role, when it is not this scheduler."""
    matches: list[tuple[int, int, str]]
    """(match, tournament, status) of every pending or running match in scope, in play order."""
    ladders: frozenset[int]
    """The living ladder's tournaments among them: their matches go after every other's."""
    progress: tuple[int, int] | None
    """(finished, total) of the one tournament of a stand-in."""


class Scheduler:
    def __init__(
        self,
        store: Store,
        executor: Executor,
        *,
        only: int | None = None,
        on_progress: Progress | None = None,
        on_problem: Callable[[str], None] | None = None,
        on_done: Callable[[int], None] | None = None,
        poll: float = POLL_S,
        ladder: Feeder | None = None,
    ) -> None:
        self.store = store
        self.executor = executor
        self.only = only
        self.on_progress = on_progress
        self.on_problem = on_problem
        self.on_done = on_done
        self.poll = poll
        self.ladder = ladder
        self.name = f"{worker_name()}/scheduler"
        self.problem = ""
        self._leases_count_from = 0.0
        self._role_seen_at = -ROLE_RENEW_S
        self._standby: roles.Holder | None = None
        self._idle_since = time.monotonic()
        self._idle_problem = ""
        self._sends = 0
        self._served: dict[int, int] = {}
        """When (in sends) each tournament last had a match sent: the longest waiting goes first."""
        self._active: set[int] = set()
        """The tournaments that had matches pending or running at the last step."""

    def run(self, stop: threading.Event | None = None) -> None:
        """Schedule until ``stop`` is set or, for a stand-in, its tournament is complete. On the
        way out (Ctrl-C included) the matches this process's pool was playing are pending again,
        and the role is free for a standby."""
        if self.ladder is not None:
            self.ladder.start()
        try:
            while stop is None or not stop.is_set():
                try:
                    if not self.step():
                        return
                except Exception:
                    if self.only is not None:
                        raise
                    # A service carries on (a fault of ours, or of a service it depends on):
                    # said, and tried again.
                    log.exception("scheduler: a step failed; trying again")
                    self.problem = "a scheduler step failed: see its log"
                pause = self.poll if not self.problem else max(self.poll, 2.0)
                if stop is None:
                    time.sleep(pause)
                else:
                    stop.wait(pause)
        finally:
            self._let_go()

    def step(self) -> bool:
        """One look at the store and one round of sending; False once a stand-in's tournament is
        complete, or a service's ladder has played the matches it was limited to."""
        survey = ride_out(self._survey, self._waiting)
        problem = ""
        if self.only is not None and survey.progress is not None and self.on_progress is not None:
            self.on_progress(*survey.progress)
        if self.only is not None and not survey.matches:
            return False
        if self.ladder is not None:
            self.ladder.active = survey.standby is None
            if self.ladder.finished():
                return False
        if survey.standby is not None:
            holder = survey.standby
            problem = holder.problem if self.only is not None else f"standing by: {holder.name} schedules"
        else:
            problem = self._dispatch(survey)
            self._finished({tournament for _, tournament, _ in survey.matches})
        self.problem = problem
        if problem and self.on_problem is not None:
            self.on_problem(problem)
        return True

    def _survey(self) -> Survey:
        with self.store.session() as session:
            standby = self._standing(session)
            if time.monotonic() > self._leases_count_from and standby is None:
                # Expired leases: their matches are pending again (the executor no longer has
                # them, so they are sent again below), or failed once out of attempts.
                expire_leases(session, MAX_ATTEMPTS)
            if standby is None:  # A/B tests stop at their bounds, or add their next matches
                abtest.advance(session, self.only)
            rows = unfinished_matches(session, self.only)
            matches = [(match, tournament, str(status)) for match, tournament, status, _ in rows]
            ladders = frozenset(tournament for _, tournament, _, kind in rows if kind == LADDER)
            done = None
            if self.only is not None:
                counts_of = progress(session, self.only)
                done = (sum(counts_of.values()) - len(matches), sum(counts_of.values()))
            return Survey(standby, matches, ladders, done)

    def _standing(self, session: Session) -> roles.Holder | None:
        """Who else holds the role. A service takes or renews it every ``ROLE_RENEW_S`` (not at
        every step: each is a write); a stand-in only looks."""
        if self.only is not None:
            return roles.holder(session, ROLE)
        now = time.monotonic()
        if now - self._role_seen_at >= ROLE_RENEW_S:
            self._role_seen_at = now
            self._standby = roles.take(session, ROLE, self.name, ROLE_LEASE, self.problem)
        return self._standby

    def _waiting(self, problem: str) -> None:
        """The store is out of reach: no lease counts as expired until the workers have had a
        whole lease to renew theirs after it is back."""
        self._leases_count_from = time.monotonic() + LEASE.total_seconds()
        self.problem = problem
        if self.on_problem is not None:
            self.on_problem(problem)

    def _dispatch(self, survey: Survey) -> str:
        """Fill the executor's room, fairly between tournaments; what keeps matches from running."""
        pending = {match for match, _, status in survey.matches if status == MatchStatus.PENDING}
        room = self.executor.room(pending)
        in_play: Counter[int] = Counter()
        waiting: dict[int, deque[int]] = {}
        for match, tournament, status in survey.matches:
            if status == MatchStatus.RUNNING or self.executor.has(match):
                in_play[tournament] += 1
            else:
                waiting.setdefault(tournament, deque()).append(match)
        while room > 0 and waiting:
            tournament = min(
                waiting,
                key=lambda other: (other in survey.ladders, in_play[other], self._served.get(other, 0)),
            )
            match = waiting[tournament].popleft()
            if not waiting[tournament]:
                del waiting[tournament]
            if not self.executor.send(match):
                return f"cannot reach {self.executor.where}: retrying"
            in_play[tournament] += 1
            room -= 1
            self._sends += 1
            self._served[tournament] = self._sends
        if self.ladder is not None:  # with no room, it still publishes its queue
            for match in self.ladder.fill(room):
                if not self.executor.send(match):
                    return f"cannot reach {self.executor.where}: retrying"
        now = time.monotonic()
        if not pending or len(pending) < len(survey.matches):  # something runs, or nothing waits
            self._idle_since, self._idle_problem = now, ""
        elif now - self._idle_since > NO_WORKER_S:
            # Matches wait and none has run for a while: is anyone there to run them? (Asked
            # every NO_WORKER_S; the answer stands until something runs.)
            self._idle_since, self._idle_problem = now, self.executor.problem() or ""
        return self._idle_problem

    def _finished(self, active: set[int]) -> None:
        if self.on_done is not None:
            for tournament in sorted(self._active - active):
                self.on_done(tournament)
        self._active = active

    def _let_go(self) -> None:
        """Stop the executor's own processes, give back the matches they held, free the role."""
        if self.ladder is not None:
            self.ladder.stop()
        self.executor.stop()
        self.executor.close()
        worker = self.executor.worker

        def release() -> None:
            with self.store.session() as session:
                if worker is not None:
                    give_back(session, worker)
                if self.only is None:
                    roles.drop(session, ROLE, self.name)

        ride_out(release, patience_s=10)


def finished_count(store: Store, tournament_id: int) -> tuple[int, int, int]:
    """(finished, still to run or running, total) for a tournament."""
    with store.session() as session:
        counts = progress(session, tournament_id)
    finished = counts[MatchStatus.DONE] + counts[MatchStatus.FAILED_INFRASTRUCTURE] + counts[MatchStatus.VOID]
    active = counts[MatchStatus.PENDING] + counts[MatchStatus.RUNNING]
    return finished, active, finished + active


def held_up_by(session: Session) -> str:
    """Why pending matches may not run, for those who follow progress: no scheduler holds the role,
    or what keeps the one that does from working; "" when nothing does."""
    current = roles.holder(session, ROLE)
    if current is None:
        return "no scheduler is running: start one (`arena scheduler`)"
    return current.problem
