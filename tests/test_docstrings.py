"""Every module of arena/, sdk/ and workers/ opens with a short docstring that leads with one plain sentence.

A module's docstring says what the module is in its first sentence, then at most a short paragraph of
what a reader needs to use or change it; derivations, design rationale and measured figures live on a
page under ``docs/`` that the docstring names. Read with ``ast``: no module is imported.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("arena", "sdk", "workers")
GENERATED = ("arena/wire/v1/", "/migrations/")
"""Generated protobuf modules and database migrations are not held to the rule."""

MAX_LINES = 15
FIRST_SENTENCE_CHARS = 200
SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n\s*\n")
"""A sentence ends at a full stop, question or exclamation mark before a space, or at a blank line."""


def modules() -> list[str]:
    paths = (path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py")))
    names = (path.relative_to(ROOT).as_posix() for path in paths)
    return [name for name in names if not any(part in name for part in GENERATED)]


def problems(name: str) -> list[str]:
    """What is wrong with a module's docstring: nothing when it keeps the rule."""
    docstring = ast.get_docstring(ast.parse((ROOT / name).read_text(encoding="utf-8")))
    if not docstring:
        return ["no module docstring"]
    found = []
    first = SENTENCE_END.search(docstring)
    first_end = first.end() if first else len(docstring)
    if first_end > FIRST_SENTENCE_CHARS:
        found.append(f"first sentence runs {first_end} characters (at most {FIRST_SENTENCE_CHARS})")
    lines = len(docstring.splitlines())
    if lines > MAX_LINES:
        found.append(f"{lines} lines (at most {MAX_LINES}; move the rest to a page under docs/)")
    return found


@pytest.mark.parametrize("name", modules())
def test_module_docstring_leads_with_one_short_sentence(name: str) -> None:
    assert not problems(name), f"{name}: {'; '.join(problems(name))}"
