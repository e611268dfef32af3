"""Reads of the living ladder: a game's ladder state (its revision, last refit and queue)."""

from __future__ import annotations

from sqlalchemy.orm import Session

from arena.store.models import LadderState


def ladder_state(session: Session, game: str) -> LadderState | None:
    """``game``'s ladder state, None before its first rating."""
    return session.get(LadderState, game)
