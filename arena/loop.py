"""The event loop that every match, its arena side and its Python bots alike, runs on.

uvloop's where it is installed (it is a dependency on every platform it supports), asyncio's
otherwise: uvloop does a decision's bookkeeping in C. The main coroutine's result is handed out past
its task, which itself ends with ``None``, so that Python 3.11's ``signal`` module does not format it
when asyncio's runner puts back Ctrl-C's handler.

Why, and the figures: docs/matches.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

try:  # imported here, not at the first run: a bot's interpreter starts with it already loaded
    import uvloop
except ImportError:  # pragma: no cover - a platform uvloop does not support (Windows)
    uvloop = None  # type: ignore[assignment]


def run(main: Coroutine[Any, Any, T]) -> T:
    """Run ``main`` to its end on a new event loop (as ``asyncio.run``) and return its result."""
    results: list[T] = []

    async def hand_out() -> None:
        results.append(await main)

    if uvloop is None:  # pragma: no cover
        asyncio.run(hand_out())
    else:
        uvloop.run(hand_out())
    return results[0]
