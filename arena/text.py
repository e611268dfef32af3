"""Text a bot controls, made safe to keep and to show.

Every bot is an adversary: what it writes (its log, its tracebacks, the strings in its actions)
must neither grow without bound where the arena keeps it nor drive the terminal or page that
shows it (an escape sequence can retitle a terminal, clear it, or forge a result line).
"""

from __future__ import annotations

import re

# C0 controls but newline and tab, DEL, and C1 controls (a terminal may read U+009B as CSI).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def escape_controls(text: str) -> str:
    """``text`` with every control character but newline and tab written out visibly:
    ESC becomes the four characters ``\\x1b``."""
    return _CONTROLS.sub(_visible, text)


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` bytes of UTF-8, with a mark saying how much was cut."""
    if len(text) * 4 <= limit:  # no character takes more than 4 bytes: short enough as it is
        return text
    data = text.encode(errors="replace")
    if len(data) <= limit:
        return text
    mark = f" [... {len(data)} bytes, cut]"
    return data[: max(0, limit - len(mark))].decode(errors="ignore") + mark
