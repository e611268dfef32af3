"""What the rules pages and the "write your first bot" page serve: the rules, and the starter bots.

Each game's RULES.md is served as HTML, and the starter bots (the Python example, the Node.js and Go
kits) as downloads.

Only files found under the kits' folders at start are served, named by an allow list built here
(no path from a request reaches the file system); a kit's zip is built in memory on request from
those files and the protocol's ``.proto``, so it builds outside the repository.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import arena.games
import sdk
from arena.web import markdown

GAMES_DIR = Path(arena.games.__file__).resolve().parent
SDK_DIR = Path(sdk.__file__).resolve().parent
PYTHON_STARTER = SDK_DIR / "examples" / "edible_starter.py"
PROTO = SDK_DIR.parent / "proto" / "arena" / "wire" / "v1" / "arena.proto"
SKIP = {"dist", "node_modules", "__pycache__"}
"""Build output and downloaded dependencies: not source."""
MAX_FILE = 256 * 1024


@cache
def rules_html(game: str) -> str | None:
    """The game's RULES.md as HTML, or None when it has none (``game`` is a known game's name)."""
    path = GAMES_DIR / game / "RULES.md"
    if not path.is_file():
        return None
    return markdown.render(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class KitFile:
    path: str
    """Inside the kit: ``src/bot.js``."""
    size: int


@dataclass(frozen=True)
class Kit:
    name: str
    """``node`` or ``go``: its URL name."""
    title: str
    folder: Path
    files: tuple[KitFile, ...]
    build: str
    """The command that builds it, from the unpacked zip's folder."""
    needs: str

    @property
    def zip_name(self) -> str:
        return f"{self.name}-starter.zip"


_KITS = {
    "node": ("Node.js", "Node.js 18 or newer and npm", "ARENA_PROTO=$PWD/arena.proto bash build.sh"),
    "go": (
        "Go",
        "Go, protoc and Debian's Go gRPC packages (the kit's README lists them)",
        "ARENA_PROTO=$PWD/arena.proto bash build.sh",
    ),
}


@cache
def kits() -> tuple[Kit, ...]:
    """The starter kits found in ``sdk/starters`` (none when the SDK was installed without them)."""
    found = []
    for name, (title, needs, build) in _KITS.items():
        folder = SDK_DIR / "starters" / name
        if folder.is_dir():
            found.append(Kit(name, title, folder, _kit_files(folder), build, needs))
    return tuple(found)


def kit(name: str) -> Kit | None:
    return next((k for k in kits() if k.name == name), None)


def _kit_files(folder: Path) -> tuple[KitFile, ...]:
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        hidden = any(part.startswith(".") for part in relative.parts)
        if hidden or SKIP & set(relative.parts) or path.is_symlink() or not path.is_file():
            continue
        size = path.stat().st_size
        if size <= MAX_FILE:
            files.append(KitFile(relative.as_posix(), size))
    return tuple(files)


def kit_file(name: str, path: str) -> bytes | None:
    """A kit's file by its listed path, else None."""
    found = kit(name)
    if found is None or path not in {f.path for f in found.files}:
        return None
    return (found.folder / path).read_bytes()


@cache
def kit_zip(name: str) -> bytes | None:
    """The kit's source as a zip of one folder (``node-starter/``), with the protocol's ``.proto``
    beside its build script; None for no such kit."""
    found = kit(name)
    if found is None:
        return None
    top = found.zip_name.removesuffix(".zip")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in found.files:
            info = zipfile.ZipInfo(f"{top}/{file.path}", date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            executable = file.path.endswith(".sh")
            info.external_attr = (0o755 if executable else 0o644) << 16
            archive.writestr(info, (found.folder / file.path).read_bytes())
        if PROTO.is_file():
            info = zipfile.ZipInfo(f"{top}/arena.proto", date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, PROTO.read_bytes())
    return buffer.getvalue()


def python_starter() -> bytes | None:
    return PYTHON_STARTER.read_bytes() if PYTHON_STARTER.is_file() else None
