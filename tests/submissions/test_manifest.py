"""Bot manifests (``arena-bot.toml``): what a submission's manifest may say, and how a bot in
another language is taken in, stored and made runnable. The bots run in tests/sandbox/test_runtimes.py."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from arena.manifest import MANIFEST, ManifestError, parse_manifest
from arena.submissions import SubmissionError, archive, check_submission, copy_code, install, unarchive

PROGRAM = b"\x7fELF not really, but a file of the bot's own\n"


@pytest.mark.parametrize(
    ("text", "files", "message"),
    [
        (b"run = [", None, "not valid TOML"),
        (b"\xff", None, "not valid TOML"),
        (b'run = ["node", "bot.js"]\nentry = "bot.js"', None, "unknown key(s) entry"),
        (b"run = []", None, "run must be a list of words"),
        (b'run = "node bot.js"', None, "run must be a list of words"),
        (b'run = ["node", ""]', None, "run must be a list of words"),
        (b"run = [1]", None, "run must be a list of words"),
        (b'run = ["x' + b"y" * 600 + b'"]', None, "run is too long"),
        (b'run = ["cobol", "bot.cbl"]', {"bot.cbl"}, "'cobol' is not a runtime this arena knows"),
        (b'run = ["./bot"]', {"bot.c"}, "./bot is not in the bot's files (build it first?)"),
        (b'run = ["../bot"]', {"bot"}, "must be a file inside the bot's folder"),
        (b'run = ["/usr/bin/node", "bot.js"]', {"bot.js"}, "must be a file inside the bot's folder"),
    ],
)
def test_a_manifest_that_cannot_run_is_refused_with_what_is_wrong(
    text: bytes, files: set[str] | None, message: str
) -> None:
    with pytest.raises(ManifestError, match=r"^arena-bot\.toml: ") as error:
        parse_manifest(text, files)
    assert message in str(error.value)


def test_a_runtime_that_is_not_installed_is_refused_with_those_that_are(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena import manifest

    missing = manifest.Runtime("nodejs-missing", "JavaScript", 'run = ["x"]', "nodejs")
    monkeypatch.setattr(manifest, "RUNTIMES", (*manifest.RUNTIMES, missing))
    with pytest.raises(ManifestError) as error:
        parse_manifest(b'run = ["nodejs-missing", "bot.js"]', {"bot.js"})
    assert "is not installed on this arena (installed: python3" in str(error.value)


def test_a_folder_with_a_manifest_is_a_bot_in_any_language(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "bot").write_bytes(PROGRAM)
    (tmp_path / "helper.py").write_text("print('not the entry point')\n")
    (tmp_path / MANIFEST).write_text('run = ["./bin/bot", "--fast"]\n')
    submission = check_submission(tmp_path)
    assert submission.entry == MANIFEST
    # Stored read-only, the program executable (its mode comes from the manifest, not the upload).
    artifact = install(submission, tmp_path / "store")
    assert stat.S_IMODE((artifact.folder / "bin" / "bot").stat().st_mode) == 0o555
    assert stat.S_IMODE((artifact.folder / "helper.py").stat().st_mode) == 0o444
    # The same files through the store's archive (which keeps no modes) come out the same.
    assert unarchive(archive(submission.files)) == submission.files
    copied = tmp_path / "copy"
    copied.mkdir()
    copy_code(artifact.folder, copied)
    assert os.access(copied / "bin" / "bot", os.X_OK)
    assert stat.S_IMODE((copied / "helper.py").stat().st_mode) == 0o644


@pytest.mark.parametrize(
    ("files", "entry", "message"),
    [
        ({MANIFEST: 'run = ["./bot.js"]'}, None, "./bot.js is not in the bot's files"),
        (
            {MANIFEST: 'run = ["node", "bot.js"]', "bot.js": "", "x.py": ""},
            "x.py",
            "leave out the entry point",
        ),
        (
            {f"dist/{MANIFEST}": 'run = ["./bot"]', "dist/bot": ""},
            None,
            "must be at the top of the submission",
        ),
        ({"bot.js": "", "main.js": ""}, None, "no arena-bot.toml (a bot in another language needs one"),
    ],
)
def test_a_submission_whose_manifest_cannot_run_is_refused(
    tmp_path: Path, files: dict[str, str], entry: str | None, message: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    with pytest.raises(SubmissionError) as error:
        check_submission(tmp_path, entry)
    assert message in str(error.value)


def test_arena_runtimes_lists_what_a_manifest_may_run() -> None:
    listed = subprocess.run(
        [sys.executable, "-m", "arena.cli", "runtimes"], capture_output=True, text=True, check=True
    ).stdout
    lines = {line.split()[0]: line for line in listed.splitlines()[1:]}
    assert f"Python {sys.version.split()[0]}" in lines["python3"]
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    assert node in lines["node"]
    assert 'run = ["./bot"]' in lines["./PROGRAM"]
