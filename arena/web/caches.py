"""Each game's ladder as the pages and the API serve it, built once per ladder revision.

The model, its JSON and its page's tables are built once per revision and shared by every request.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from arena.store.db import Store
from arena.store.models import User
from arena.store.queries.ratings import revision
from arena.web.views import bots
from arena.web.views.ladder import Ladder, ladder


class LadderCache:
    """The ladder as JSON and as the page's table, per game, rebuilt only when its revision moves."""

    def __init__(self) -> None:
        self._entries: dict[tuple[str, str], tuple[int, Any]] = {}
        self._lock = threading.Lock()

    def peek(self, kind: str, game: str, current: int) -> Any:
        """The cached value if it is of revision ``current``, else None."""
        with self._lock:
            cached = self._entries.get((kind, game))
        return cached[1] if cached is not None and cached[0] == current else None

    def get(self, kind: str, game: str, current: int, build: Callable[[], Any]) -> Any:
        value = self.peek(kind, game, current)
        if value is not None:
            return value
        value = build()
        with self._lock:
            self._entries[(kind, game)] = (current, value)
        return value


class Revisions:
    """Each game's ladder revision, read from the store at most every ``ttl`` seconds: the hot ladder
    reads then touch neither the database nor a worker thread (a ladder is at most ``ttl`` stale)."""

    def __init__(self, store: Store, ttl: float = 0.5) -> None:
        self.store, self.ttl = store, ttl
        self._seen: dict[str, tuple[float, int]] = {}

    def fresh(self, game: str) -> int | None:
        seen = self._seen.get(game)
        return seen[1] if seen is not None and time.monotonic() - seen[0] < self.ttl else None

    def load(self, game: str) -> int:
        with self.store.session() as session:
            current = revision(session, game)
        self._seen[game] = (time.monotonic(), current)
        return current

    async def current(self, game: str) -> int:
        known = self.fresh(game)
        return known if known is not None else await run_in_threadpool(self.load, game)


class Ladders:
    """The app's ladders: ``cache`` holds what is built from a ladder (by kind and game), ``revisions``
    tells which revision is current."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.cache = LadderCache()
        self.revisions = Revisions(store)

    def cached_ladder(self, game: str, current: int, session: Session | None = None) -> Ladder:
        """The ladder model of revision ``current``, built in the calling worker thread if new: with
        the request's ``session`` if it has one (a request holding a connection while it waited for a
        second one could drain the pool when many arrive together), else with a session of its own."""

        def build() -> Ladder:
            if session is not None:
                return ladder(session, game)
            with self.store.session() as own:
                return ladder(own, game)

        return self.cache.get("model", game, current, build)  # type: ignore[no-any-return]

    def current_ladder(self, session: Session, game: str) -> Ladder:
        """The game's ladder at the revision the store holds now, from the cache."""
        return self.cached_ladder(game, revision(session, game), session)

    def bot_page(self, session: Session, bot_id: int, viewer: User | None, page_number: int) -> bots.BotPage:
        """The bot's page (its matches' page ``page_number``), with its game's ladder from the cache."""
        return bots.bot_page(
            session, bot_id, viewer, lambda game: self.current_ladder(session, game), page_number
        )

    async def cached(self, kind: str, game: str, current: int, build: Callable[[], Any]) -> Any:
        """From the cache without leaving the event loop, else built in a worker thread."""
        value = self.cache.peek(kind, game, current)
        return (
            value
            if value is not None
            else await run_in_threadpool(self.cache.get, kind, game, current, build)
        )
