"""How much a user may have running: a bound on the tournaments, and one on the challenges, each
user keeps unfinished.

The matches themselves all go through the one scheduler and its pool (``arena serve --workers N``
plays N at a time, whoever started them); this bound keeps one user from queueing so much that
everyone else's tournaments wait behind theirs. Admins are not bound.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from arena.store.models import User
from arena.store.queries.tournaments import unfinished_count

MAX_UNFINISHED = 2
"""Tournaments a user who is not an admin may have with matches pending or running."""
CHALLENGE = "challenge"
"""The kind of a challenge's tournament (``arena.tournament.challenges``): bounded on its own."""
MAX_CHALLENGES = 2
"""Challenges a user who is not an admin may have with their match pending or running; they do not
count against ``MAX_UNFINISHED``, nor tournaments against this."""


PLAY = "play"
"""The kind of a person's game against bots (``arena.web.playing``): bounded on its own (one game
at a time), and counted against neither bound here."""
OWN_BOUNDS = (CHALLENGE, PLAY)
"""The kinds that do not count as a user's tournaments."""


class QuotaError(Exception):
    """The user already has as much running as they may."""


def unfinished(session: Session, user: User, *, challenges: bool = False) -> int:
    """How many of ``user``'s tournaments (or with ``challenges`` their challenges) still have
    matches pending or running."""
    return unfinished_count(session, user.id, kind=CHALLENGE if challenges else None, leave_out=OWN_BOUNDS)


def check_room(session: Session, user: User, *, challenge: bool = False) -> None:
    """``QuotaError`` if ``user`` may not start another tournament (or ``challenge``) now."""
    if user.is_admin:
        return
    if challenge:
        if unfinished(session, user, challenges=True) >= MAX_CHALLENGES:
            raise QuotaError(
                f"you have {MAX_CHALLENGES} challenges unfinished, as many as a user may have at a time: "
                "start another once one of them is over"
            )
        return
    if unfinished(session, user) >= MAX_UNFINISHED:
        raise QuotaError(
            f"you have {MAX_UNFINISHED} unfinished tournaments, as many as a user may have at a time: "
            "start another once one of them is over"
        )
