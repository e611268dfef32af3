"""Dependencies point one way: every package sits in a layer and imports only from its own layer or
below, with no cycle and no import hidden inside a function; rules and the runner import no
transport, storage or queue library; only the store speaks SQL."""

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


LAYERS: tuple[tuple[str, ...], ...] = (
    ("arena", "arena.text", "arena.names", "arena.launch", "arena.manifest", "arena.loop"),
    ("arena.games",),
    ("arena.runner",),
    ("arena.submissions", "arena.bots"),
    ("arena.wire", "arena.sandbox"),
    ("arena.transport",),
    ("sdk", "arena.checks"),
    ("arena.store",),
    ("arena.ratings",),
    ("arena.ladder",),
    ("arena.tournament", "arena.rerun"),
    ("arena.web", "workers"),
    ("arena.cli",),
)
"""The units of the code (a package, or a module of the arena's top level), lowest first."""

SEPARATE_PROGRAMS = {"arena/sandbox/zygote.py"}
"""Files that also run as programs of their own, started by path on the bot runtime, whose
functions import the arena's modules once their program has put the arena on its path."""


def unit_of(module: str) -> str | None:
    """The unit of ``module`` (``arena.web`` for ``arena.web.views.bots``), ``None`` if not ours; a
    game folder's modules of a higher layer count as that layer's."""
    parts = module.split(".")
    if parts[0] in ("sdk", "workers"):
        return parts[0]
    if parts[0] != "arena":
        return None
    if is_folder_layer(module):
        return "arena.wire" if parts[3] == "codec" else "arena.checks"
    return ".".join(parts[:2])


def layer_of(unit: str) -> int:
    return next(index for index, units in enumerate(LAYERS) if unit in units)


def our_files() -> list[Path]:
    return [
        path
        for top in ("arena", "sdk", "workers")
        for path in (ROOT / top).rglob("*.py")
        if "wire/v1" not in str(path)
    ]


def module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imports(path: Path) -> list[tuple[str, bool]]:
    """Every module ``path`` imports, and whether the import is inside a function."""
    found: list[tuple[str, bool]] = []

    def visit(node: ast.AST, inside: bool) -> None:
        for child in ast.iter_child_nodes(node):
            nested = inside or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                found.extend((alias.name, inside) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                found.extend(
                    (
                        f"{child.module}.{alias.name}"
                        if _is_module(f"{child.module}.{alias.name}")
                        else child.module,
                        inside,
                    )
                    for alias in child.names
                )
            visit(child, nested)

    visit(ast.parse(path.read_text()), False)
    return found


def _is_module(name: str) -> bool:
    parts = name.split(".")
    base = ROOT.joinpath(*parts)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def test_every_unit_has_a_layer() -> None:
    units = {unit for path in our_files() if (unit := unit_of(module_of(path))) is not None}
    placed = {unit for layer in LAYERS for unit in layer}
    assert units <= placed, f"units with no layer: {sorted(units - placed)}"


def test_imports_point_down_the_layers_with_no_cycle() -> None:
    upward = []
    edges: dict[str, set[str]] = {}
    for path in our_files():
        source = unit_of(module_of(path))
        assert source is not None
        program = str(path.relative_to(ROOT)) in SEPARATE_PROGRAMS
        for name, inside in imports(path):
            target = unit_of(name)
            if inside and program:  # the other program's imports, not this module's
                continue
            if target is None or target == source:
                continue
            if layer_of(target) > layer_of(source):
                upward.append(f"{path.relative_to(ROOT)} imports {name} ({source} is below {target})")
            edges.setdefault(source, set()).add(target)
    assert not upward, "\n".join(upward)
    for layer in LAYERS:  # within a layer, units may lean on each other one way only
        for unit in layer:
            for other in edges.get(unit, set()) & set(layer):
                assert unit not in edges.get(other, set()), f"{unit} and {other} import each other"


def test_no_import_of_our_own_modules_hides_in_a_function() -> None:
    hidden = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in our_files()
        if str(path.relative_to(ROOT)) not in SEPARATE_PROGRAMS
        for name, inside in imports(path)
        if inside and unit_of(name) is not None
    ]
    assert not hidden, "\n".join(hidden)


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


TYPE_NAMES = {"Session", "Engine", "Connection"}
"""What a module outside the store may import from SQLAlchemy: the type names of its annotations."""


def sqlalchemy_names(path: Path) -> list[str]:
    """What ``path`` imports from SQLAlchemy beyond ``TYPE_NAMES``."""
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names if alias.name.split(".")[0] == "sqlalchemy"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlalchemy":
            names += [f"{node.module}.{alias.name}" for alias in node.names if alias.name not in TYPE_NAMES]
    return names


STATEMENT_CALLS = {"add", "add_all", "delete", "execute", "scalar", "scalars", "query"}
"""What a session or connection runs or adds: only the store's queries and repository call these."""


def statement_calls(path: Path) -> list[str]:
    """The calls of ``STATEMENT_CALLS`` on a ``session`` or ``connection`` in ``path``, by line."""
    return [
        f"line {node.lineno}: {node.func.value.id}.{node.func.attr}"
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id in ("session", "connection")
        and node.func.attr in STATEMENT_CALLS
    ]


def test_only_the_store_speaks_sql() -> None:
    """Statements, functions and errors of SQL live in ``arena.store``: its query modules read, its
    repository writes, each in the caller's unit of work (``Store.session()``)."""
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in our_files()
        if not path.is_relative_to(ROOT / "arena" / "store")
        for name in [*sqlalchemy_names(path), *statement_calls(path)]
    ]
    assert not offenders, "\n".join(offenders)
