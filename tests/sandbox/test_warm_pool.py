"""The pool of prepared sandboxes (``arena.sandbox.warm``) when preparing fails."""

from __future__ import annotations

import time

from arena.sandbox.base import SandboxError
from arena.sandbox.warm import Prepared, WarmPool


def failing() -> Prepared:
    raise SandboxError("bubblewrap could not set up the sandbox: no answer")


def never_called(prepared: Prepared) -> None:
    raise AssertionError("nothing was prepared, so nothing is discarded")


def test_an_executors_start_does_not_sit_out_its_wait_when_no_sandbox_can_be_prepared() -> None:
    # A worker whose sandboxes cannot be set up starts at once; its first match shows why.
    pool = WarmPool()
    pool.expect("kind", failing, never_called, 4)
    started = time.monotonic()
    assert pool.wait_ready(4, timeout_s=60) is False
    assert time.monotonic() - started < 30, "it waited for sandboxes that were never coming"
    assert pool.ready() == 0
