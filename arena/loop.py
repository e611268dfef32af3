"""The event loop that every match, its arena side and its Python bots alike, runs on.

uvloop's where it is installed (it is a dependency on every platform it supports), asyncio's
otherwise. A decision crosses each side's event loop twice (a message out, one in); uvloop does
that bookkeeping in C, where asyncio's loop runs it in Python (a believe match of plain processes,
measured interleaved on a noisy machine: some 13-17% less CPU per decision, both sides together).
``bench/run.py`` measures its floor on this same loop, so the ratio it prints is not flattered.

The main coroutine's result is handed out past its task, which itself ends with ``None``: on the
main thread, asyncio's runner puts back Ctrl-C's handler at the end, and Python 3.11's ``signal``
module then formats the ``repr`` of the handler it replaces, which holds the main task and so its
result, twice (``signal.getsignal`` and ``signal.signal`` each try the handler as an enum member and
build the error's message). A match's whole record took 6-18 ms to format for every 50-game match a
tournament's pool process played.
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
