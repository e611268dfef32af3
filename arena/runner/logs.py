"""A bot's stderr log, capped in size, that always keeps the last traceback."""

from __future__ import annotations

import re
from collections import deque

_TRACEBACK_START = "Traceback (most recent call last):"
# The last line of a traceback: an exception name at the start of a line, e.g. "ValueError: x".
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)?(: .*)?$")


class CappedLog:
    """Keeps the first ``head`` bytes, the last ``tail`` bytes and the last complete traceback.

    Whatever is dropped in between is replaced by a one-line marker saying how much; if the
    last traceback falls in the dropped part, it is appended after the tail.
    """

    def __init__(self, head: int = 16_384, tail: int = 49_152) -> None:
        self.head_limit, self.tail_limit = head, tail
        self._head: list[str] = []
        self._head_size = 0
        self._tail: deque[str] = deque()
        self._tail_size = 0
        self.dropped = 0
        self._partial = ""
        self._written = 0
        self._tb_lines: list[str] | None = None
        self._tb_start = 0
        self._last_tb_start = 0
        self.last_traceback = ""

    def write(self, text: str) -> None:
        lines = (self._partial + text).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._line(line + "\n")

    def flush(self) -> None:
        if self._partial:
            partial, self._partial = self._partial, ""
            self._line(partial + "\n")
        if self._tb_lines:
            self._end_traceback()

    def _line(self, line: str) -> None:
        self._track_traceback(line)
        self._written += len(line)
        if self._head_size + len(line) <= self.head_limit and not self._tail:
            self._head.append(line)
            self._head_size += len(line)
            return
        self._tail.append(line)
        self._tail_size += len(line)
        while self._tail_size > self.tail_limit and len(self._tail) > 1:
            dropped = self._tail.popleft()
            self._tail_size -= len(dropped)
            self.dropped += len(dropped)

    def _track_traceback(self, line: str) -> None:
        stripped = line.rstrip("\n")
        if stripped.startswith(_TRACEBACK_START):
            self._tb_lines = [line]
            self._tb_start = self._written
        elif self._tb_lines is not None:
            self._tb_lines.append(line)
            if not stripped.startswith((" ", "\t")) and _EXCEPTION_LINE.match(stripped):
                self._end_traceback()

    def _end_traceback(self) -> None:
        assert self._tb_lines is not None
        self.last_traceback = "".join(self._tb_lines)
        self._tb_lines = None
        self._last_tb_start = self._tb_start

    def text(self) -> str:
        self.flush()
        parts = ["".join(self._head)]
        if self.dropped:
            parts.append(f"[... {self.dropped} bytes of log dropped ...]\n")
        parts.append("".join(self._tail))
        tail_start = self._written - self._tail_size
        kept = self._last_tb_start >= tail_start or self._last_tb_start + len(self.last_traceback) <= len(
            parts[0]
        )
        if self.last_traceback and not kept:
            parts.append("[... the last traceback, kept from the dropped part ...]\n" + self.last_traceback)
        return "".join(parts)
