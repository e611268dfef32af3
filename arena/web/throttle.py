"""Log-in throttling: too many failures for one account, or from one address, and further attempts
are refused (429, with ``Retry-After``) for a while, the right password included.

Per account (the name as typed, by its skeleton, whether or not such a user exists: a lock says
nothing about which names are users): ``ACCOUNT_FAILURES`` failures within ``WINDOW_S`` lock it for
``FIRST_LOCK_S``, and each further lock within ``STRIKES_KEPT_S`` lasts twice the one before, up to
``LONGEST_LOCK_S``. Per address the same with ``ADDRESS_FAILURES`` (an address may be many people
behind one NAT, and one attacker trying many accounts). A good password clears its account's
failures, never its address's. Invalid API tokens count against their address too, and a locked
address's bearer requests are refused the same way (a token is 192 random bits: guessing one is
hopeless, but trying costs a database lookup each time).

The state is in this process's memory: right for ``arena serve``, one process; several web
processes behind a balancer would each keep their own (multiplying the limits by their number),
and a restart forgets it. Entries left idle go, so memory stays bounded (``MAX_KEYS``).
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
MAX_KEYS = 100_000
"""Keys kept at most: past it, the idle ones go first, then the oldest."""


@dataclass
class _Record:
    failures: list[float] = field(default_factory=list)
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

    def failed(self, key: str, limit: int) -> None:
        """One more failure for ``key``; locks it once ``limit`` fall within the window."""
        now = self.clock()
        with self._lock:
            record = self._records.get(key)
            if record is None:
                self._prune(now)
                record = self._records[key] = _Record()
            record.seen = now
            record.failures = [when for when in record.failures if now - when < WINDOW_S]
            record.failures.append(now)
            if len(record.failures) >= limit:
                record.strikes = record.strikes + 1 if now - record.last_lock < STRIKES_KEPT_S else 1
                record.last_lock = now
                record.locked_until = now + min(LONGEST_LOCK_S, FIRST_LOCK_S * 2 ** (record.strikes - 1))
                record.failures = []

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
            and now - record.seen > WINDOW_S
            and now - record.last_lock > STRIKES_KEPT_S
        ]
        for key in idle:
            del self._records[key]
        if len(self._records) >= MAX_KEYS:  # all busy: the least recently seen go
            for key in sorted(self._records, key=lambda key: self._records[key].seen)[: MAX_KEYS // 10]:
                del self._records[key]

    # ------------------------------------------------------------------ the web app's two doors

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
