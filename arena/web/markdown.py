"""A small, safe Markdown renderer for the games' RULES.md on the rules pages.

It knows the subset those files use: ``#`` headings (with ids for links), paragraphs, ``-``/``*``
and ``1.`` lists (nested by indentation, items continued on indented lines), pipe tables, and
inline `` `code` ``, ``**strong**``, ``*emphasis*`` and ``[links](target)``. Everything else is
text. All text is escaped before any tag is added, and a link's target must be a web address or a
path on the site (no ``javascript:``), so no input makes markup of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_SAFE_TARGET = re.compile(r"^(https?://|/(?![/\\])|#)")


def render(text: str) -> str:
    """``text`` (Markdown) as HTML."""
    return "\n".join(_blocks(text.replace("\r\n", "\n").split("\n")))


def slug(text: str) -> str:
    """An id for a heading: lower case words joined by ``-``."""
    return "-".join(re.findall(r"[a-z0-9]+", text.lower())) or "section"


def inline(text: str) -> str:
    """One line's inline Markdown as HTML: code spans are left as they are, the rest is formatted."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unmatched backtick is a backtick
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    out = []
    for index, part in enumerate(parts):
        out.append(f"<code>{escape(part)}</code>" if index % 2 else _format(part))
    return "".join(out)


def _format(text: str) -> str:
    text = escape(text)
    text = _LINK.sub(_link, text)
    text = _STRONG.sub(r"<strong>\1</strong>", text)
    return _EMPHASIS.sub(r"<em>\1</em>", text)


def _link(match: re.Match[str]) -> str:
    label, target = match.group(1), match.group(2)
    if not _SAFE_TARGET.match(target):  # no javascript: or data: (nor relative paths: the page moves)
        return label
    return f'<a href="{target}">{label}</a>'  # both already escaped


@dataclass
class _Item:
    lines: list[str]
    children: list[_List] = field(default_factory=list)


@dataclass
class _List:
    ordered: bool
    indent: int
    items: list[_Item] = field(default_factory=list)

    def html(self) -> str:
        tag = "ol" if self.ordered else "ul"
        items = "".join(
            "<li>" + inline(" ".join(item.lines)) + "".join(child.html() for child in item.children) + "</li>"
            for item in self.items
        )
        return f"<{tag}>{items}</{tag}>"


def _blocks(lines: list[str]) -> list[str]:
    out: list[str] = []
    paragraph: list[str] = []
    index = 0

    def flush() -> None:
        if paragraph:
            out.append("<p>" + inline(" ".join(line.strip() for line in paragraph)) + "</p>")
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        heading = _HEADING.match(line)
        if not line.strip():
            flush()
            index += 1
        elif heading:
            flush()
            level, title = len(heading.group(1)), heading.group(2)
            out.append(f'<h{level} id="{slug(title)}">{inline(title)}</h{level}>')
            index += 1
        elif line.lstrip().startswith("|") and index + 1 < len(lines) and _TABLE_RULE.match(lines[index + 1]):
            flush()
            index = _table(lines, index, out)
        elif _ITEM.match(line) and not paragraph:
            index = _list(lines, index, out)
        else:
            paragraph.append(line)
            index += 1
    flush()
    return out


def _cells(line: str) -> list[str]:
    """A table row's cells: split at the pipes outside code spans."""
    line = line.strip().removeprefix("|").removesuffix("|")
    cells: list[str] = []
    cell: list[str] = []
    in_code = False
    for char in line:
        if char == "|" and not in_code:
            cells.append("".join(cell).strip())
            cell = []
            continue
        in_code ^= char == "`"
        cell.append(char)
    return [*cells, "".join(cell).strip()]


def _table(lines: list[str], index: int, out: list[str]) -> int:
    head = _cells(lines[index])
    rows = []
    index += 2
    while index < len(lines) and lines[index].lstrip().startswith("|"):
        rows.append(_cells(lines[index]))
        index += 1
    parts = ['<div class="scroll"><table><thead><tr>']
    parts += [f"<th>{inline(cell)}</th>" for cell in head]
    parts.append("</tr></thead><tbody>")
    for row in rows:
        row = (row + [""] * len(head))[: len(head)]
        parts.append("<tr>" + "".join(f"<td>{inline(cell)}</td>" for cell in row) + "</tr>")
    parts.append("</tbody></table></div>")
    out.append("".join(parts))
    return index


def _starts_another_list(item: re.Match[str], top: _List) -> bool:
    """An item at the top list's level, of the other kind (``1.`` after ``-``, or ``-`` after ``1.``)."""
    indent = len(item.group(1).expandtabs(4))
    return indent <= top.indent and item.group(2)[0].isdigit() != top.ordered


def _list(lines: list[str], index: int, out: list[str]) -> int:
    """A list and its nested lists, up to a blank line followed by something that is not an item."""
    stack: list[_List] = []
    while index < len(lines):
        line = lines[index]
        item = _ITEM.match(line)
        if not line.strip():
            following = _ITEM.match(next((later for later in lines[index + 1 :] if later.strip()), ""))
            if following is None or _starts_another_list(following, stack[0]):
                break
            index += 1
            continue
        if item is None:
            if _HEADING.match(line) or not line.startswith((" ", "\t")):
                break
            stack[-1].items[-1].lines.append(line.strip())  # the item goes on
            index += 1
            continue
        if stack and _starts_another_list(item, stack[0]):
            break
        indent, ordered = len(item.group(1).expandtabs(4)), item.group(2)[0].isdigit()
        while len(stack) > 1 and indent < stack[-1].indent:
            stack.pop()
        if not stack or (indent > stack[-1].indent and stack[-1].items):
            nested = _List(ordered, indent)
            if stack:
                stack[-1].items[-1].children.append(nested)
            stack.append(nested)
        stack[-1].items.append(_Item([item.group(3)]))
        index += 1
    out.append(stack[0].html())
    return index
