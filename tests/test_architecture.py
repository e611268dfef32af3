"""Dependencies point one way: rules and the runner import no transport, storage or queue library."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("grpc", "google.protobuf", "sqlalchemy", "celery", "redis", "arena.wire", "arena.transport")
PURE = [ROOT / "arena" / "games", ROOT / "arena" / "runner"]
FOLDER_LAYERS = {"codec.py": "the wire", "checks.py": "the bot checks"}
"""A game folder's modules that belong to layers above the engines (``arena.games.registry``)."""


def pure_files() -> list[Path]:
    return [
        path
        for folder in PURE
        for path in folder.rglob("*.py")
        if not (path.parent.parent == ROOT / "arena" / "games" and path.name in FOLDER_LAYERS)
    ]


def is_folder_layer(module: str) -> bool:
    """Whether ``module`` is a game folder's module of a higher layer (``arena.games.edible.codec``)."""
    parts = module.split(".")
    return len(parts) == 4 and parts[:2] == ["arena", "games"] and f"{parts[3]}.py" in FOLDER_LAYERS


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_engines_and_runner_import_no_framework() -> None:
    offenders = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in pure_files()
        for name in imported_modules(path)
        if name.startswith(FORBIDDEN) or is_folder_layer(name)
    }
    assert not offenders, offenders


def test_engines_do_no_io_and_hold_no_randomness() -> None:
    for path in (ROOT / "arena" / "games").rglob("engine.py"):
        names = imported_modules(path)
        assert not names & {"os", "io", "socket", "subprocess", "time", "pathlib"}, path
        source = path.read_text()
        assert "random.Random(" not in source and "random.seed" not in source, path


def test_loading_engines_runner_and_bots_pulls_in_no_grpc() -> None:
    code = (
        "import sys, arena.games.registry, arena.runner.match, arena.runner.replay, arena.runner.inprocess, "
        "arena.games.edible.bots\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'sqlalchemy', 'celery')))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert result.stdout.strip() == "[]"
