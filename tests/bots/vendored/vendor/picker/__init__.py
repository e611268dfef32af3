"""A bot's own pure-Python package, shipped in its ``vendor/`` folder: picks a move."""

import random
from collections.abc import Sequence
from typing import TypeVar

__version__ = "1.0"

Move = TypeVar("Move")


def pick(rng: random.Random, legal: Sequence[Move]) -> Move:
    """One of the legal moves, at random."""
    return rng.choice(legal)
