"""Text a bot controls, made safe to keep and to show.

Every bot is an adversary: what it writes (its log, its tracebacks, the strings in its actions)
must neither grow without bound where the arena keeps it nor drive the terminal or page that
shows it (an escape sequence can retitle a terminal, clear it, or forge a result line).
So is every file a user is handed: a replay holds bots' names and fault details. The ``arena``
command therefore prints through ``TerminalStream`` (``terminal_guard``), whoever wrote the text.
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
from collections.abc import Iterator
from typing import TextIO

# C0 controls but newline and tab, DEL, and C1 controls (a terminal may read U+009B as CSI).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# On a terminal a tab too (nothing but newline gets through), and the lone surrogates a string read
# from JSON may hold, which no terminal's encoding can write.
_TERMINAL_CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    """``text`` with every control character but newline and tab written out visibly:
    ESC becomes the four characters ``\\x1b``."""
    return _CONTROLS.sub(_visible, text)


def escape_for_terminal(text: str) -> str:
    """``text`` with every control character but newline (a tab too) written out visibly."""
    return _TERMINAL_CONTROLS.sub(_visible, text)


class TerminalStream(io.TextIOBase):
    """A text stream that writes to ``raw`` what it is given with every control character but
    newline written out visibly (``escape_for_terminal``)."""

    def __init__(self, raw: TextIO) -> None:
        super().__init__()
        self.raw = raw

    def write(self, text: str) -> int:
        self.raw.write(escape_for_terminal(text))
        return len(text)

    def writable(self) -> bool:
        return True

    def flush(self) -> None:
        self.raw.flush()

    def isatty(self) -> bool:
        return self.raw.isatty()

    def fileno(self) -> int:
        return self.raw.fileno()


def unguarded(stream: TextIO) -> TextIO:
    """The stream a ``TerminalStream`` writes to (``stream`` itself otherwise): for the control
    characters the arena writes on purpose, a progress bar's carriage return."""
    return stream.raw if isinstance(stream, TerminalStream) else stream


@contextlib.contextmanager
def terminal_guard() -> Iterator[None]:
    """While it lasts, ``sys.stdout`` and ``sys.stderr`` are ``TerminalStream``s: no control
    character but newline reaches them from ``print``, ``logging`` or a traceback."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = TerminalStream(sys.stdout), TerminalStream(sys.stderr)
    try:
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        sys.stdout, sys.stderr = saved


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8, with a mark saying how much was cut."""
    if len(text) * 4 <= limit:  # no character takes more than 4 bytes: short enough as it is
        return text
    data = text.encode(errors="replace")
    if len(data) <= limit:
        return text
    mark = f" [... {len(data)} bytes, cut]"
    return data[: max(0, limit - len(mark))].decode(errors="ignore") + mark
