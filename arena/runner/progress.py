"""A dependency-free progress bar on stderr, with rate and ETA; silent when stderr is not a terminal
except for a final line."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from arena.text import escape_for_terminal, unguarded


class ProgressBar:
    def __init__(self, total: int, label: str = "", stream: TextIO | None = None, width: int = 30) -> None:
        self.total, self.label, self.width = total, label, width
        self.stream = unguarded(stream or sys.stderr)  # its own carriage returns reach the terminal
        self.started = time.perf_counter()
        self.done = 0
        self.note = ""
        self._last_draw = 0.0
        self.interactive = self.stream.isatty()

    def update(self, done: int, note: str = "") -> None:
        self.done, self.note = done, note
        now = time.perf_counter()
        if self.interactive and (now - self._last_draw > 0.1 or done == self.total):
            self._last_draw = now
            self.stream.write("\r" + self.render(now))
            self.stream.flush()

    def say(self, message: str) -> None:
        """A line of its own above the bar (a problem the user should know about now)."""
        self.stream.write(("\r\x1b[K" if self.interactive else "") + escape_for_terminal(message) + "\n")
        self.stream.flush()
        self._last_draw = 0.0

    def render(self, now: float | None = None) -> str:
        elapsed = (now or time.perf_counter()) - self.started
        fraction = self.done / self.total if self.total else 1.0
        filled = int(self.width * fraction)
        bar = "#" * filled + "-" * (self.width - filled)
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = (self.total - self.done) / rate if rate > 0 else 0.0
        return escape_for_terminal(
            f"{self.label} [{bar}] {self.done}/{self.total} "
            f"{rate:.1f}/s elapsed {elapsed:.1f}s eta {eta:.1f}s {self.note}"
        ).rstrip()

    def close(self) -> None:
        line = self.render()
        self.stream.write(("\r" + line if self.interactive else line) + "\n")
        self.stream.flush()
