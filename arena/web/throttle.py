"""Log-in and sign-up throttling: after too many failures or sign-ups, further tries are refused a while.

Refused means 429 with ``Retry-After``, the right password included. Per account (the name as typed):
``ACCOUNT_FAILURES`` failures within ``WINDOW_S`` lock it for ``FIRST_LOCK_S``, each further lock
within ``STRIKES_KEPT_S`` twice as long, up to ``LONGEST_LOCK_S``; per address the same with
``ADDRESS_FAILURES``, invalid API tokens included. Sign-ups: at most ``SIGNUPS`` accounts from one
address within ``SIGNUP_WINDOW_S``. The state is in this process's memory, bounded (``MAX_KEYS``).

Why these rules: docs/web.md.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from arena.names import skeleton

ACCOUNT_FAILURES = 5
"""Failed log-ins to one account within ``WINDOW_S`` before it is locked."""
ADDRESS_FAILURES = 20
"""Failed log-ins (or invalid API tokens) from one address within ``WINDOW_S`` before it is locked."""
WINDOW_S = 15 * 60.0
FIRST_LOCK_S = 60.0
"""The first lock; each further one within ``STRIKES_KEPT_S`` of the last doubles it."""
LONGEST_LOCK_S = 15 * 60.0
STRIKES_KEPT_S = 24 * 3600.0
SIGNUPS = 10
"""Accounts created from one address within ``SIGNUP_WINDOW_S``."""
SIGNUP_WINDOW_S = 3600.0
MAX_KEYS = 100_000
"""Keys kept at most: past it, the idle ones go first, then the oldest."""


@dataclass
class _Record:
    events: list[float] = field(default_factory=list)
    """When its failures (a log-in key) or its sign-ups (a sign-up key) happened, within the window."""
    locked_until: float = 0.0
    strikes: int = 0
    last_lock: float = 0.0
    seen: float = 0.0


class Throttle:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    @staticmethod
    def account(name: str) -> str:
        return f"account:{skeleton(name.strip())}"

    @staticmethod
    def address(host: str | None) -> str:
        return f"address:{host or 'unknown'}"

    def wait(self, *keys: str) -> int:
        """Seconds until every one of ``keys`` may try again; 0 when they may now."""
        now = self.clock()
        with self._lock:
            locked = [self._records[key].locked_until for key in keys if key in self._records]
        return max([math.ceil(until - now) for until in locked if until > now], default=0)

    def _recent(self, key: str, now: float, window: float) -> _Record:
        """``key``'s record (made if new), its events older than ``window`` dropped. Under the lock."""
        record = self._records.get(key)
        if record is None:
            self._prune(now)
            record = self._records[key] = _Record()
        record.seen = now
        record.events = [when for when in record.events if now - when < window]
        return record

    def failed(self, key: str, limit: int) -> None:
        """One more failure for ``key``; locks it once ``limit`` fall within the window."""
        now = self.clock()
        with self._lock:
            record = self._recent(key, now, WINDOW_S)
            record.events.append(now)
            if len(record.events) >= limit:
                record.strikes = record.strikes + 1 if now - record.last_lock < STRIKES_KEPT_S else 1
                record.last_lock = now
                record.locked_until = now + min(LONGEST_LOCK_S, FIRST_LOCK_S * 2 ** (record.strikes - 1))
                record.events = []

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._records.pop(key, None)

    def _prune(self, now: float) -> None:
        if len(self._records) < MAX_KEYS:
            return
        idle = [
            key
            for key, record in self._records.items()
            if record.locked_until < now
            and now - record.seen > max(WINDOW_S, SIGNUP_WINDOW_S)
            and now - record.last_lock > STRIKES_KEPT_S
        ]
        for key in idle:
            del self._records[key]
        if len(self._records) >= MAX_KEYS:  # all busy: the least recently seen go
            for key in sorted(self._records, key=lambda key: self._records[key].seen)[: MAX_KEYS // 10]:
                del self._records[key]

    # ------------------------------------------------------------------ the web app's doors

    def login_wait(self, name: str, host: str | None) -> int:
        """Seconds before ``name`` may log in from ``host`` again; 0: now."""
        return self.wait(self.account(name), self.address(host))

    def login_failed(self, name: str, host: str | None) -> None:
        self.failed(self.account(name), ACCOUNT_FAILURES)
        self.failed(self.address(host), ADDRESS_FAILURES)

    def login_succeeded(self, name: str) -> None:
        self.succeeded(self.account(name))

    def token_wait(self, host: str | None) -> int:
        return self.wait(self.address(host))

    def token_failed(self, host: str | None) -> None:
        self.failed(self.address(host), ADDRESS_FAILURES)

    @staticmethod
    def signups(host: str | None) -> str:
        return f"signups:{host or 'unknown'}"

    def take_signup(self, host: str | None) -> int:
        """Counts a sign-up from ``host`` and returns 0; or, when ``host`` has had ``SIGNUPS`` within
        the window, counts nothing and returns the seconds until it may sign up again. Counted
        before the account is made, so that concurrent sign-ups cannot all pass."""
        now = self.clock()
        with self._lock:
            record = self._recent(self.signups(host), now, SIGNUP_WINDOW_S)
            if len(record.events) >= SIGNUPS:
                return max(1, math.ceil(record.events[-SIGNUPS] + SIGNUP_WINDOW_S - now))
            record.events.append(now)
            return 0

    def return_signup(self, host: str | None) -> None:
        """Uncounts ``host``'s latest sign-up (it was refused: no account was made)."""
        with self._lock:
            record = self._records.get(self.signups(host))
            if record is not None and record.events:
                record.events.pop()
