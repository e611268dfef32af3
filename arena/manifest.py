"""How a bot runs: a Python file, or the command its ``arena-bot.toml`` manifest names.

A bot folder (or zip) may carry ``arena-bot.toml`` at its top::

    run = ["node", "bot.js"]

``run`` is the command, run in the bot's folder (``/bot`` in the sandbox); its first word is a
runtime installed on this machine (``arena runtimes`` lists them) or a program inside the bot's
folder. A ``.py`` file without a manifest runs on the Python bot runtime (``PYTHON_RUNTIME``), a venv
of its own built by ``deploy/setup.sh``.

In full: docs/sandbox.md.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

MANIFEST = "arena-bot.toml"
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
"""Where a bot's commands are found: the ``PATH`` of every bot process, and all that a sandbox
shows of the host's programs."""
MAX_WORDS, MAX_WORD = 64, 512
SOURCE_ROOT = Path(__file__).resolve().parents[1]
RUNTIMES_FOLDER = "ARENA_RUNTIMES"
"""The environment variable naming the folder the Python bot runtimes are built in (by default
``.runtimes`` in the arena's source folder, where ``deploy/setup.sh`` builds them)."""
STAMP = ".card-arena-runtime"
"""The file ``deploy/runtime/build.sh`` writes last into a runtime it built."""


class ManifestError(Exception):
    """A manifest that cannot run; the message says what is wrong."""


@dataclass(frozen=True)
class PythonRuntime:
    """The Python bot runtime: a venv of its own (no pip) that Python bots run on, read-only."""

    name: str
    """Its versioned name: another set of libraries is another name (``python-2``)."""
    folder: Path

    @property
    def interpreter(self) -> Path:
        return self.folder / "bin" / "python3"

    def installed(self) -> bool:
        """Whether ``deploy/runtime/build.sh`` finished building it."""
        return (self.folder / STAMP).is_file() and self.interpreter.exists()

    def missing(self) -> str:
        """What to say where it is not installed: what is missing, and the fix."""
        return (
            f"the Python bot runtime {self.name} is not installed (no {self.folder}): "
            "run bash deploy/setup.sh, which builds it"
        )

    @property
    def base_prefix(self) -> Path:
        """The Python installation its venv is based on (the standard library, the interpreter)."""
        config = (self.folder / "pyvenv.cfg").read_text()
        home = next(line.partition("=")[2].strip() for line in config.splitlines() if line.startswith("home"))
        return Path(home).resolve().parent

    @property
    def site_packages(self) -> Path:
        (found,) = self.folder.glob("lib/python3*/site-packages")
        return found

    def libraries(self) -> list[tuple[str, str]]:
        """Its libraries (name and version), as installed."""
        found = importlib.metadata.distributions(path=[str(self.site_packages)])
        return sorted((library.metadata["Name"], library.version) for library in found)


PYTHON_RUNTIME = "python-1"


def python_runtime() -> PythonRuntime:
    """The Python bot runtime, where this arena has it built (installed or not)."""
    folder = Path(os.environ.get(RUNTIMES_FOLDER) or SOURCE_ROOT / ".runtimes")
    return PythonRuntime(PYTHON_RUNTIME, folder.resolve() / PYTHON_RUNTIME)


@functools.cache
def bot_python() -> str:
    """The interpreter Python bots run on: the bot runtime's. Where it is not installed (only
    trusted, unsandboxed play gets this far: the bubblewrap backend refuses to start without it),
    the arena's own, with a warning that what a bot may import then differs from the platform's."""
    runtime = python_runtime()
    if runtime.installed():
        return str(runtime.interpreter)
    print(
        f"arena: WARNING: {runtime.missing()}\narena: WARNING: Python bots run on the arena's own "
        "Python, which holds other libraries than the platform's bots get",
        file=sys.stderr,
    )
    return sys.executable


@dataclass(frozen=True)
class Runtime:
    """A language runtime a manifest may name as its command."""

    name: str
    """The command as a manifest writes it."""
    language: str
    example: str
    package: str
    """The Debian package that installs it."""
    version_flag: str = "--version"

    def path(self) -> str | None:
        """Where the runtime is, as a bot process would find it, or ``None`` if not installed."""
        if self.name == "python3":
            return bot_python()
        return shutil.which(self.name, path=SANDBOX_PATH)

    def version(self) -> str | None:
        """The runtime's version line, or ``None`` if it is not installed or does not run."""
        return _version(self.path(), self.version_flag)


RUNTIMES = (
    Runtime("python3", "Python", 'run = ["python3", "bot.py"]', "python3"),
    Runtime("node", "JavaScript (Node.js)", 'run = ["node", "bot.js"]', "nodejs"),
)
"""Runtimes by name. A program of the bot's own (``./bot``) needs none: a static binary runs
anywhere."""


@functools.cache
def _version(path: str | None, flag: str) -> str | None:
    if path is None:
        return None
    try:
        done = subprocess.run([path, flag], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[0] if done.returncode == 0 and lines else None


def installed_runtimes() -> list[Runtime]:
    return [runtime for runtime in RUNTIMES if runtime.version() is not None]


@dataclass(frozen=True)
class Manifest:
    run: tuple[str, ...]

    @property
    def program(self) -> str | None:
        """The bot's own program the command starts (a path in its folder), if it names one."""
        first = self.run[0]
        return str(PurePosixPath(first)) if "/" in first else None

    def command(self, folder: Path) -> list[str]:
        """The command line with its program made absolute, for a bot whose folder is ``folder``."""
        program = self.program
        if program is not None:
            return [str(folder / program), *self.run[1:]]
        runtime = {runtime.name: runtime for runtime in RUNTIMES}[self.run[0]]
        return [runtime.path() or self.run[0], *self.run[1:]]


def parse_manifest(text: bytes, files: set[str] | None = None) -> Manifest:
    """The manifest in ``text``, checked: ``ManifestError`` names what is wrong. With ``files`` (the
    bot's file names), a program it runs must be among them and a runtime must be installed."""
    try:
        data = tomllib.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise ManifestError(f"{MANIFEST}: not valid TOML ({error})") from None
    unknown = sorted(set(data) - {"run"})
    if unknown:
        raise ManifestError(f"{MANIFEST}: unknown key(s) {', '.join(unknown)}; it holds one key, run")
    run = data.get("run")
    if (
        not isinstance(run, list)
        or not run
        or not all(isinstance(word, str) and word and "\0" not in word for word in run)
    ):
        raise ManifestError(f'{MANIFEST}: run must be a list of words, e.g. run = ["node", "bot.js"]')
    if len(run) > MAX_WORDS or any(len(word) > MAX_WORD for word in run):
        raise ManifestError(
            f"{MANIFEST}: run is too long (at most {MAX_WORDS} words of {MAX_WORD} characters)"
        )
    manifest = Manifest(tuple(run))
    if files is not None:
        _check_command(manifest, files)
    return manifest


def _check_command(manifest: Manifest, files: set[str]) -> None:
    program = manifest.program
    if program is not None:
        path = PurePosixPath(program)
        if path.is_absolute() or ".." in path.parts:
            raise ManifestError(
                f"{MANIFEST}: {manifest.run[0]}: the program must be a file inside the bot's folder"
            )
        if str(path) not in files:
            raise ManifestError(f"{MANIFEST}: {manifest.run[0]} is not in the bot's files (build it first?)")
        return
    name = manifest.run[0]
    known = {runtime.name: runtime for runtime in RUNTIMES}
    installed = ", ".join(runtime.name for runtime in installed_runtimes()) or "none"
    if name not in known:
        raise ManifestError(
            f"{MANIFEST}: {name!r} is not a runtime this arena knows (installed: {installed}, "
            'or a program of your own in the folder: run = ["./bot"]; see arena runtimes)'
        )
    if known[name].version() is None:
        raise ManifestError(
            f"{MANIFEST}: the {known[name].language} runtime {name!r} is not installed on this arena "
            f"(installed: {installed}; see arena runtimes)"
        )


def read_manifest(folder: Path) -> Manifest:
    """The manifest of the bot in ``folder`` (its files already checked as a submission's)."""
    try:
        text = (folder / MANIFEST).read_bytes()
    except OSError as error:
        raise ManifestError(f"{folder / MANIFEST}: cannot read it: {error.strerror}") from None
    return parse_manifest(text)


def executables(files: dict[str, bytes]) -> set[str]:
    """The files of a bot that must be executable: the program its manifest runs, if any."""
    if MANIFEST not in files:
        return set()
    program = parse_manifest(files[MANIFEST]).program
    return {program} if program is not None else set()
