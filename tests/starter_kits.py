"""The starter kits (``sdk/starters/*``) for tests: what each needs, and each built by its own
build.sh at most once per test run (the ``starter_kits`` fixture of tests/conftest.py), shared by
the run's parallel workers.

Without a kit's tools its tests skip, except under CI (``CI=true``), where they fail: CI must not
pass without having built and played the kit."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

STARTERS = Path(__file__).resolve().parents[1] / "sdk" / "starters"


@dataclass(frozen=True)
class Kit:
    name: str
    language: str
    manifest: str
    """The ``arena-bot.toml`` the build writes."""
    files: tuple[str, ...]
    """Every file of the built folder, sorted."""
    tools: dict[str, str]
    """Command -> the Debian package that provides it."""
    sources: dict[str, str] = field(default_factory=dict)
    """Folder that must exist -> the Debian package that provides it."""

    @property
    def folder(self) -> Path:
        return STARTERS / self.name

    def missing(self) -> list[str]:
        """The Debian packages the build needs that are not installed."""
        missing = [package for tool, package in self.tools.items() if shutil.which(tool) is None]
        return missing + [package for folder, package in self.sources.items() if not Path(folder).is_dir()]


KITS = {
    "node": Kit(
        name="node",
        language="Node.js",
        manifest='run = ["node", "bot.js"]\n',
        files=("arena-bot.toml", "bot.js"),
        tools={"node": "nodejs", "npm": "npm"},
    ),
    "go": Kit(
        name="go",
        language="Go",
        manifest='run = ["./bot"]\n',
        files=("arena-bot.toml", "bot"),
        tools={
            "go": "golang-go",
            "protoc": "protobuf-compiler",
            "protoc-gen-go": "protoc-gen-go",
            "protoc-gen-go-grpc": "protoc-gen-go-grpc",
        },
        sources={
            "/usr/share/gocode/src/google.golang.org/grpc": "golang-google-grpc-dev",
            "/usr/share/gocode/src/google.golang.org/protobuf": "golang-google-protobuf-dev",
        },
    ),
}


class StarterKits:
    """Each kit built once, on first use, into a folder of its own under ``folder``; a lock file
    per kit lets the parallel workers of one run share ``folder`` and the build."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)

    def built(self, name: str) -> Path:
        """The kit's built folder (the bot folder a user submits); skips the test when the kit's
        tools are missing (fails under CI)."""
        kit = KITS[name]
        if missing := kit.missing():
            message = f"the {kit.language} starter needs Debian's {' '.join(missing)}"
            if os.environ.get("CI") == "true":
                pytest.fail(message)
            pytest.skip(message)
        out, failed = self.folder / name, self.folder / f"{name}.failed"
        with (self.folder / f"{name}.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be building it: wait for its result
            if not out.is_dir() and not failed.exists():
                command = ["bash", str(kit.folder / "build.sh"), str(out)]
                build = subprocess.run(command, capture_output=True, text=True, timeout=900)
                if build.returncode != 0:
                    shutil.rmtree(out, ignore_errors=True)
                    failed.write_text(f"{name} build.sh failed:\n{build.stdout}\n{build.stderr}")
        if failed.exists():
            pytest.fail(failed.read_text())
        return out
