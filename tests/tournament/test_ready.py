"""An executor's process, readied for its first match (``get_ready``)."""

from __future__ import annotations

import os

from fresh import fresh_python

_READY_THEN_COUNT = """
import gc
from arena.tournament.play import get_ready
get_ready()
print(gc.get_freeze_count(), len(gc.get_objects()))
"""


def test_what_the_imports_made_is_out_of_the_collectors_reach() -> None:
    """The modules and libraries that an executor's process holds to its end are frozen: a full
    collection, which each match's record and replay bring on as they grow old, walks only what
    the matches made, not the whole process again (tens of ms a time)."""
    environment = {**os.environ, "ARENA_SANDBOX": "none", "ARENA_PIN_CPU": "0"}
    frozen, collectable = map(int, fresh_python(_READY_THEN_COUNT, environment).split())
    assert frozen > 20 * collectable, (frozen, collectable)
