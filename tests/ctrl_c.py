"""Pressing Ctrl-C on a command, as a terminal does it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path


def ctrl_c(
    args: Sequence[str], cwd: Path, ready: Callable[[], bool], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGS`` in a session of its own; once ``ready()`` (or after 60 s) and a moment
    more, send SIGINT to its whole process group, as a terminal's Ctrl-C does; its result."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while process.poll() is None and not ready() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)  # well into its work
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=30)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)
