"""How a bot runs: a Python file, or the command its ``arena-bot.toml`` manifest names.

A bot folder (or zip) may carry ``arena-bot.toml`` at its top::

    run = ["node", "bot.js"]

``run`` is the command, run with the bot's folder as its working directory (``/bot`` in the
sandbox). Its first word is a runtime installed on this machine (``arena runtimes`` lists them)
or a program inside the bot's folder (``./bot``, say a static binary), which the arena makes
executable wherever it puts the code. The rest are its arguments. A ``.py`` file without a
manifest runs with the arena's Python, as it always has.
"""

from __future__ import annotations

import functools
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


class ManifestError(Exception):
    """A manifest that cannot run; the message says what is wrong."""


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
            return sys.executable  # the arena's own: a Python bot gets the SDK's packages
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
