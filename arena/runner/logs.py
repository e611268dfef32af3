"""A bot's stderr log, capped in size, that always keeps the last traceback.

Whatever a bot writes (no newline at all, one endless traceback, a flood of empty lines), the
log costs the arena bounded memory and linear time: bytes are kept as they come (the first and
the last of them), and lines are looked at only by regular expressions run over whole chunks, to
find where a traceback starts and ends.
"""

from __future__ import annotations

import re

from arena.text import clip

_TRACEBACK_START = re.compile(rb"^Traceback \(most recent call last\):", re.MULTILINE)
# The last line of a traceback: an exception name at the start of a line, e.g. "ValueError: x".
_EXCEPTION_LINE = re.compile(
    rb"^[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)?(?:: .*)?$", re.MULTILINE
)
LINE_LIMIT = 1024
"""Bytes of a line that are looked at: enough to tell a traceback's first or last line."""


class _Clip:
    """The first ``head`` and the last ``tail`` bytes of a stream, and how much fell between."""

    def __init__(self, head: int, tail: int) -> None:
        self.head_limit, self.tail_limit = head, tail
        self.head = bytearray()
        self.tail = bytearray()
        self.size = 0

    def add(self, data: bytes) -> None:
        self.size += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        self.tail += data
        # Trimmed only once it is twice its size: each byte is moved a bounded number of times.
        if len(self.tail) > 2 * self.tail_limit:
            del self.tail[: -self.tail_limit]

    def render(self, what: str) -> tuple[bytes, int, int]:
        """The kept bytes, cut at line ends around a marker if some were dropped; and where in
        the stream the kept head ends and the kept tail starts."""
        head, tail = bytes(self.head), bytes(self.tail[-self.tail_limit :])
        if len(head) + len(tail) == self.size:
            return head + tail, self.size, 0
        if b"\n" in head:
            head = head[: head.rindex(b"\n") + 1]
        if b"\n" in tail[:-1]:
            tail = tail[tail.index(b"\n") + 1 :]
        dropped = self.size - len(head) - len(tail)
        marker = f"[... {dropped} bytes of {what} dropped ...]\n".encode()
        return head + marker + tail, len(head), self.size - len(tail)


class CappedLog:
    """Keeps the first ``head`` bytes, the last ``tail`` bytes and the last traceback (itself
    capped at ``traceback`` bytes); ``text`` is never longer than ``limit`` bytes.

    Whatever is dropped in between is replaced by a one-line marker saying how much; if the
    last traceback falls in the dropped part, it is appended after the tail.
    """

    def __init__(self, head: int = 16_384, tail: int = 49_152, traceback: int = 16_384) -> None:
        self.limit = head + tail + traceback + 1024
        self._log = _Clip(head, tail)
        self._traceback_limits = (traceback // 4, traceback - traceback // 4)
        self._open: _Clip | None = None
        self._open_start = 0
        self._last: _Clip | None = None
        self._last_start = 0
        self._line: list[bytes] = []
        """The unfinished last line: at most ``LINE_LIMIT`` bytes of it."""
        self._line_size = 0
        self._line_start = 0

    def write(self, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode()
        offset = self._log.size
        self._log.add(data)
        end = data.rfind(b"\n") + 1
        if end:
            carried = b"".join(self._line)
            self._scan(carried + data[:end], len(carried), self._line_start, offset - len(carried))
            self._line, self._line_size = [], 0
        rest = data[end:]
        if rest and self._line_size < LINE_LIMIT:
            if not self._line:
                self._line_start = offset + end
            rest = rest[: LINE_LIMIT - self._line_size]
            self._line.append(rest)
            self._line_size += len(rest)

    def _scan(self, lines: bytes, carried: int, line_start: int, shift: int) -> None:
        """Follow tracebacks through complete ``lines``, whose first ``carried`` bytes are the
        start of a line (cut to ``LINE_LIMIT``) that began at ``line_start`` in the stream; any
        later position ``p`` is at ``p + shift`` in the stream."""

        def at(position: int) -> int:
            return line_start if position < carried else position + shift

        position = 0
        start = _TRACEBACK_START.search(lines)
        while True:
            if self._open is None:
                if start is None:
                    return
                self._open = _Clip(*self._traceback_limits)
                self._open_start = at(start.start())
                position = start.start()
                start = _TRACEBACK_START.search(lines, start.end())
            # The traceback ends at its exception line, unless another one starts first.
            limit = start.start() if start is not None else len(lines)
            end = _EXCEPTION_LINE.search(lines, position, limit)
            if end is None:
                if start is None:
                    self._open.add(lines[position:])
                    return
                self._open = None  # abandoned for the one that starts next
                continue
            self._open.add(lines[position : end.end() + 1])
            self._last, self._last_start, self._open = self._open, self._open_start, None
            position = end.end() + 1

    def _traceback(self) -> tuple[_Clip | None, int]:
        """The last traceback: an unfinished one counts (the bot may have died writing it)."""
        if self._open is not None:
            return self._open, self._open_start
        return self._last, self._last_start

    @property
    def last_traceback(self) -> str:
        traceback, _ = self._traceback()
        return traceback.render("traceback")[0].decode(errors="replace") if traceback else ""

    def text(self) -> str:
        body, head_end, tail_start = self._log.render("log")
        if body and not body.endswith(b"\n"):
            body += b"\n"
        traceback, start = self._traceback()
        if traceback is not None and tail_start > start and start + traceback.size > head_end:
            body += b"[... the last traceback, kept from the dropped part ...]\n"
            body += traceback.render("traceback")[0]
        return clip(body.decode(errors="replace"), self.limit)
