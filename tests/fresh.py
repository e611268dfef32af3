"""Python code run in a fresh interpreter of the project's: for what only a new process shows (what
loads first, what a process holds after its start)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def fresh_python(code: str, env: Mapping[str, str] | None = None) -> str:
    """What ``code`` prints, run by ``python -c`` from the repository's root (failing on an error)."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout
