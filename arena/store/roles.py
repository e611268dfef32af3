"""Roles: a duty one process at a time performs (the scheduler), held on a lease in the store.

The holder renews its lease as it works; a process that finds the lease expired (its holder died
or hangs) takes the role over. Taking and renewing are one conditional write each, so two
processes never both believe they hold a role. A holder also publishes what keeps it from
working (``problem``), for those who only follow progress.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from arena.store.models import Role, now


@dataclass(frozen=True)
class Holder:
    """Who holds a role now, and what keeps it from working ("" when nothing does)."""

    name: str
    problem: str


def take(session: Session, role: str, holder: str, lease: timedelta, problem: str = "") -> Holder | None:
    """Take or renew ``role`` for ``holder`` until ``lease`` from now; ``None`` once it is held,
    else the live holder that keeps it."""
    started = now()
    renewed = session.execute(
        update(Role)
        .where(Role.name == role, (Role.holder == holder) | (Role.lease_until < started))
        .values(holder=holder, lease_until=started + lease, problem=problem)
    )
    if renewed.rowcount == 1:  # type: ignore[attr-defined]
        return None
    current = session.get(Role, role)
    if current is not None:
        return Holder(current.holder, current.problem)
    try:
        with session.begin_nested():  # the first holder ever: two may try at once
            session.add(Role(name=role, holder=holder, lease_until=started + lease, problem=problem))
    except IntegrityError:
        current = session.get(Role, role)
        assert current is not None
        return Holder(current.holder, current.problem)
    return None


def holder(session: Session, role: str) -> Holder | None:
    """The live holder of ``role``, if any (an expired lease holds nothing)."""
    current = session.get(Role, role)
    if current is None or current.lease_until < now():
        return None
    return Holder(current.holder, current.problem)


def drop(session: Session, role: str, holder: str) -> None:
    """Give ``role`` up at once (a clean stop), so a standby need not wait for the lease."""
    session.execute(delete(Role).where(Role.name == role, Role.holder == holder))
