"""A bot's code folder is read under the submission rules once per arena process and linked into
each sandbox after that (arena.sandbox.staging)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from arena.sandbox.staging import StagedCode
from arena.submissions import SubmissionError, copy_code

PREFIX = "card-arena-test-staging-"


class CountedCopy:
    """``copy_code``, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, source: Path, target: Path) -> None:
        self.calls += 1
        copy_code(source, target)


def bot_folder(folder: Path, answer: str) -> Path:
    (folder / "lib").mkdir(parents=True, exist_ok=True)
    (folder / "bot.py").write_text(f"ANSWER = {answer!r}\n")
    (folder / "lib" / "helper.js").write_text("module.exports = 1;\n")
    return folder


def empty_folders(parent: Path, *names: str) -> list[Path]:
    made = [parent / name for name in names]
    for folder in made:
        folder.mkdir()
    return made


def staged_folders() -> set[str]:
    return {name for name in os.listdir(tempfile.gettempdir()) if name.startswith(PREFIX)}


def test_a_folder_is_read_once_and_its_sandboxes_share_the_staged_files(tmp_path: Path) -> None:
    source, copy, staged = bot_folder(tmp_path / "bot", "a"), CountedCopy(), StagedCode(PREFIX)
    first, second = empty_folders(tmp_path, "first", "second")
    try:
        staged.place(source, first, copy)
        staged.place(source, second, copy)
        assert copy.calls == 1
        for name in ("bot.py", "lib/helper.js"):
            assert (first / name).read_bytes() == (second / name).read_bytes() == (source / name).read_bytes()
            assert (first / name).stat().st_ino == (second / name).stat().st_ino
        assert oct((second / "lib").stat().st_mode & 0o777) == oct(0o755)
        assert oct(second.stat().st_mode & 0o777) == oct(0o755)
    finally:
        staged.clear()
    assert staged_folders() == set()


def test_a_changed_folder_is_staged_again(tmp_path: Path) -> None:
    source, copy, staged = bot_folder(tmp_path / "bot", "a"), CountedCopy(), StagedCode(PREFIX)
    before, after = empty_folders(tmp_path, "before", "after")
    try:
        staged.place(source, before, copy)
        (source / "bot.py").write_text("ANSWER = 'b'\n")
        staged.place(source, after, copy)
        assert copy.calls == 2
        assert (before / "bot.py").read_text() == "ANSWER = 'a'\n"
        assert (after / "bot.py").read_text() == "ANSWER = 'b'\n"
    finally:
        staged.clear()


def test_the_oldest_staged_folder_goes_and_its_sandboxes_keep_their_files(tmp_path: Path) -> None:
    staged, copy = StagedCode(PREFIX, keep=1), CountedCopy()
    one, two = bot_folder(tmp_path / "one", "1"), bot_folder(tmp_path / "two", "2")
    targets = empty_folders(tmp_path, "t1", "t2", "t3")
    try:
        staged.place(one, targets[0], copy)
        left = staged_folders()
        staged.place(two, targets[1], copy)
        assert len(staged_folders()) == 1 and staged_folders() != left, "the first staged folder was kept"
        assert (targets[0] / "bot.py").read_text() == "ANSWER = '1'\n"
        staged.place(one, targets[2], copy)
        assert copy.calls == 3
    finally:
        staged.clear()


def test_a_folder_the_rules_refuse_is_refused_each_time_and_nothing_is_kept(tmp_path: Path) -> None:
    source = bot_folder(tmp_path / "bot", "a")
    (source / "escape").symlink_to("/etc/passwd")
    staged, copy = StagedCode(PREFIX), CountedCopy()
    for target in empty_folders(tmp_path, "first", "second"):
        with pytest.raises(SubmissionError, match="escape"):
            staged.place(source, target, copy)
        assert list(target.iterdir()) == []
    assert copy.calls == 2
    assert staged_folders() == set()
