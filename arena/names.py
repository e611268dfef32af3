"""User and bot names that cannot pass for one another.

Two names are the same name when their *skeletons* are equal: NFKC, casefolded, with the Cyrillic
and Greek letters that look like Latin ones mapped to those, and accents, zero-width and other
invisible characters dropped: ``ALICE``, ``alice``, ``\u0430lice`` (a Cyrillic a), and ``alice`` in
fullwidth letters all have the skeleton ``alice``. The store keeps every user's and bot's skeleton in a column
with a unique index (``users.name_key``; ``bots.name_key`` per game), so that two requests at once
cannot both take look-alike names. The table is small and deliberate, not Unicode's whole
confusables list: the letters that pass for Latin ones in ordinary fonts.

Some user names are reserved: ``builtin`` is what pages show as the owner of the built-in bots, and
the others would pass for the platform speaking.
"""

from __future__ import annotations

import unicodedata

RESERVED_USERS = frozenset(
    {
        "admin",
        "administrator",
        "anonymous",
        "api",
        "arena",
        "builtin",
        "cardarena",
        "guest",
        "local",
        "moderator",
        "nobody",
        "null",
        "none",
        "owner",
        "root",
        "staff",
        "support",
        "system",
        "unknown",
        "www",
    }
)
"""Skeletons no one may sign up as. An admin may give them out (``arena user create``: ``local`` is
the embedded default's own admin, and a new PostgreSQL store's first admin may be ``root``), all but
``NEVER``."""
NEVER = frozenset({"builtin"})
"""What the pages show as the owner of the built-in bots: no user is ever named so."""

MAX_KEY = 255
"""The longest skeleton kept (NFKC may lengthen a 64-character name)."""

_LOOKALIKES = {
    # Cyrillic (after casefolding, so lower case only)
    "\u0430": "a",  # cyrillic small letter a
    "\u0432": "b",  # cyrillic small letter ve
    "\u0435": "e",  # cyrillic small letter ie
    "\u0451": "e",  # cyrillic small letter io
    "\u04bb": "h",  # cyrillic small letter shha
    "\u0456": "i",  # cyrillic small letter byelorussian-ukrainian i
    "\u0457": "i",  # cyrillic small letter yi
    "\u0458": "j",  # cyrillic small letter je
    "\u043a": "k",  # cyrillic small letter ka
    "\u043c": "m",  # cyrillic small letter em
    "\u043d": "h",  # cyrillic small letter en
    "\u043e": "o",  # cyrillic small letter o
    "\u0440": "p",  # cyrillic small letter er
    "\u0441": "c",  # cyrillic small letter es
    "\u0442": "t",  # cyrillic small letter te
    "\u0443": "y",  # cyrillic small letter u
    "\u0445": "x",  # cyrillic small letter ha
    "\u0455": "s",  # cyrillic small letter dze
    "\u0501": "d",  # cyrillic small letter komi de
    "\u051b": "q",  # cyrillic small letter qa
    "\u051d": "w",  # cyrillic small letter we
    "\u04cf": "l",  # cyrillic small letter palochka
    "\u044c": "b",  # cyrillic small letter soft sign
    # Greek
    "\u03b1": "a",  # greek small letter alpha
    "\u03b2": "b",  # greek small letter beta
    "\u03b5": "e",  # greek small letter epsilon
    "\u03b7": "n",  # greek small letter eta
    "\u03b9": "i",  # greek small letter iota
    "\u03ba": "k",  # greek small letter kappa
    "\u03bc": "u",  # greek small letter mu
    "\u03bd": "v",  # greek small letter nu
    "\u03bf": "o",  # greek small letter omicron
    "\u03c1": "p",  # greek small letter rho
    "\u03c4": "t",  # greek small letter tau
    "\u03c5": "u",  # greek small letter upsilon
    "\u03c7": "x",  # greek small letter chi
    "\u03c9": "w",  # greek small letter omega
    "\u03f2": "c",  # greek lunate sigma symbol
    "\u03f3": "j",  # greek letter yot
    # Latin look-alikes among themselves
    "\u0131": "i",  # latin small letter dotless i
    "\u0237": "j",  # latin small letter dotless j
    "\u0251": "a",  # latin small letter alpha
    "\u0261": "g",  # latin small letter script g
}
_TABLE = str.maketrans(_LOOKALIKES)


def skeleton(name: str) -> str:
    """The form two look-alike names share: NFKC, casefolded, confusables mapped, invisibles dropped."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    # combining marks go too: "álice" (a + U+0301) looks like "alice" with a speck on it
    decomposed = unicodedata.normalize("NFD", folded.translate(_TABLE))
    kept = "".join(char for char in decomposed if unicodedata.category(char) not in ("Mn", "Me", "Cf"))
    return unicodedata.normalize("NFC", kept.translate(_TABLE))[:MAX_KEY]


def is_reserved(name: str, words: frozenset[str] = RESERVED_USERS) -> bool:
    """Whether ``name`` is one of ``words``, also with look-alike letters or ``-``, ``_``, ``.``."""
    key = skeleton(name)
    return key in words or key.replace("-", "").replace("_", "").replace(".", "") in words
