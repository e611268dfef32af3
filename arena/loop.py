"""The event loop that every match, its arena side and its Python bots alike, runs on.

uvloop's where it is installed (it is a dependency on every platform it supports), asyncio's
otherwise. A decision crosses each side's event loop twice (a message out, one in); uvloop does
that bookkeeping in C, where asyncio's loop runs it in Python (a believe match of plain processes,
measured interleaved on a noisy machine: some 13-17% less CPU per decision, both sides together).
``bench/run.py`` measures its floor on this same loop, so the ratio it prints is not flattered.
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
    if uvloop is None:  # pragma: no cover
        return asyncio.run(main)
    return uvloop.run(main)
