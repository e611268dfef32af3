"""Installing Card Arena: a newcomer's first screen is short, progress and the result, no warnings."""

from __future__ import annotations

import ctypes.util
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

BUILD_METADATA = """
import sys, warnings
from setuptools import build_meta
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    name = build_meta.prepare_metadata_for_build_wheel(sys.argv[1])
for warning in caught:
    print(f"{warning.category.__name__}: {str(warning.message).strip().splitlines()[0]}", file=sys.stderr)
print(name)
"""


def test_the_project_metadata_builds_without_a_warning(tmp_path: Path) -> None:
    """What pip builds first (pyproject.toml read by the build backend): no deprecation or other
    warning to pass on to the person installing, and the license as an SPDX expression."""
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    build = subprocess.run(
        [sys.executable, "-c", BUILD_METADATA, str(tmp_path)],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert build.returncode == 0, build.stderr
    warnings = [line for line in build.stderr.splitlines() if "Warning" in line]
    assert warnings == []
    metadata = (tmp_path / build.stdout.split()[-1] / "METADATA").read_text()
    assert "License-Expression: MIT" in metadata.splitlines()


@pytest.mark.slow
def test_setup_prints_a_few_lines_of_progress_and_the_result(tmp_path: Path) -> None:
    """``bash deploy/setup.sh`` (the README's first command) into a fresh copy: its whole output is
    a few lines of its own, no pip notices or warnings, and the arena command works. It builds the
    Python bot runtime too, holding what bots are promised (numpy, onnxruntime, the SDK's
    libraries) and nothing of the server's, and ``arena runtimes`` lists it."""
    needed = {  # what setup.sh would install from the distribution when run as root: a test must not
        "python3-venv": importlib.util.find_spec("ensurepip"),
        "bubblewrap": shutil.which("bwrap"),
        "libseccomp2": ctypes.util.find_library("seccomp"),
    }
    missing = " ".join(name for name, found in needed.items() if not found)
    assert not missing, f"install {missing} first (Debian: apt-get install {missing})"
    copy = tmp_path / "card-arena"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, copy / name)
    for name in ("arena", "sdk", "workers", "deploy"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    ignored = ("PYTHONPATH", "VIRTUAL_ENV", "ARENA_RUNTIMES")
    env = {key: value for key, value in os.environ.items() if key not in ignored}
    setup = subprocess.run(
        ["bash", "deploy/setup.sh"], cwd=copy, env=env, capture_output=True, text=True, timeout=900
    )
    lines = (setup.stdout + setup.stderr).splitlines()
    assert setup.returncode == 0, setup.stdout + setup.stderr
    assert len(lines) <= 4 and all(line.startswith("setup: ") for line in lines), lines
    assert not [line for line in lines if "warn" in line.lower() or "deprecat" in line.lower()]
    assert lines[-1].startswith("setup: installed into .venv")
    assert "built the bot runtime .runtimes/python-1" in lines[-1]
    games = subprocess.run([copy / ".venv/bin/arena", "games"], capture_output=True, text=True, timeout=120)
    assert games.returncode == 0 and games.stdout.startswith("edible"), games.stderr
    runtime = copy / ".runtimes" / "python-1" / "bin" / "python3"
    promised = "import numpy, onnxruntime, grpc, google.protobuf, uvloop; print(onnxruntime.__version__)"
    imports = subprocess.run([runtime, "-c", promised], capture_output=True, text=True, timeout=120)
    assert imports.returncode == 0, imports.stderr
    for server in ("sqlalchemy", "celery", "fastapi", "pip"):
        refused = subprocess.run([runtime, "-c", f"import {server}"], capture_output=True, text=True)
        assert f"ModuleNotFoundError: No module named '{server}'" in refused.stderr
    listed = subprocess.run(
        [copy / ".venv/bin/arena", "runtimes"], capture_output=True, text=True, timeout=120
    )
    assert "bot runtime python-1" in listed.stdout
    assert f"onnxruntime {imports.stdout.strip()}" in listed.stdout
    again = subprocess.run(["bash", "deploy/setup.sh"], cwd=copy, env=env, capture_output=True, text=True)
    version = subprocess.run([copy / ".venv/bin/python", "--version"], capture_output=True, text=True).stdout
    done = f"setup: .venv is up to date ({version.strip()}, .[server,sandbox])"
    # Nothing built again: the runtime is up to date too.
    assert again.stdout.splitlines() == [f"{done}; the arena command is .venv/bin/arena"], again.stderr
