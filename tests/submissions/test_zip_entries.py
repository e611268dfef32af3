"""A zip's entries: counted whatever their kind, from the end record before the directory is read
(the count and the directory's size both), and names a file system can hold, checked before
anything is written."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import pytest

from arena.submissions import (
    MAX_NAME_BYTES,
    MAX_PATH_BYTES,
    Submission,
    SubmissionError,
    SubmissionLimits,
    install,
    read_submission,
    store_submission,
)

BOT = b"print(1)\n"


def folders(count: int, width: int = 1) -> bytes:
    """A zip of a bot and ``count`` empty directory entries whose names are ``width`` wide at least."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("bot.py", BOT)
        for number in range(count):
            archive.writestr(zipfile.ZipInfo(f"{number:0{width}x}/"), b"")
    return out.getvalue()


def stating(data: bytes, entries: int) -> bytes:
    """``data`` with its end record's entry counts replaced by ``entries``: a lying zip."""
    at = data.rindex(b"PK\x05\x06")
    return data[: at + 8] + struct.pack("<2H", entries, entries) + data[at + 12 :]


def written(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "bot.zip"
    path.write_bytes(data)
    return path


def test_directory_entries_count_as_files_do(tmp_path: Path) -> None:
    limits = SubmissionLimits(max_files=3)
    assert set(read_submission(written(tmp_path, folders(2)), limits)) == {"bot.py"}
    with pytest.raises(SubmissionError, match="4 entries, at most 3"):
        read_submission(written(tmp_path, folders(3)), limits)
    folder = tmp_path / "bot"
    (folder / "a" / "b").mkdir(parents=True)
    (folder / "bot.py").write_bytes(BOT)
    assert set(read_submission(folder, limits)) == {"bot.py"}
    (folder / "c").mkdir()
    with pytest.raises(SubmissionError, match="more than 3 entries"):
        read_submission(folder, limits)


def test_a_zip64_end_record_is_read_for_the_count(tmp_path: Path) -> None:
    data = folders(70_000)  # over 65,535 entries: the end record says 0xFFFF, the ZIP64 one the count
    assert data[data.rindex(b"PK\x05\x06") + 10 : data.rindex(b"PK\x05\x06") + 12] == b"\xff\xff"
    with pytest.raises(SubmissionError, match=f"70001 entries, at most {SubmissionLimits().max_files}"):
        read_submission(written(tmp_path, data))


def test_a_lying_count_is_caught_by_the_directory_size_or_by_counting(tmp_path: Path) -> None:
    limits = SubmissionLimits(max_files=3)
    # the directory is larger than 3 entries can be: refused before zipfile reads it
    with pytest.raises(SubmissionError, match=r"a zip directory of \d+ bytes, over the \d+-byte limit"):
        read_submission(written(tmp_path, stating(folders(200, width=40), 2)), limits)
    # small enough to read, and counted as it is read
    with pytest.raises(SubmissionError, match="more than 3 entries"):
        read_submission(written(tmp_path, stating(folders(10), 2)), limits)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("n" * (MAX_NAME_BYTES + 1), "a name of 256 bytes in it, over 255 bytes"),
        ("é" * 128, "a name of 256 bytes in it, over 255 bytes"),  # bytes, not characters
        ("a/" + "n" * 300 + "/b.py", "a name of 300 bytes in it"),
        ("/".join(["d" * 99] * 10) + "/" + "f" * 25, "a path of 1025 bytes, over the 1024-byte limit"),
    ],
)
def test_names_and_paths_too_long_are_refused_before_anything_is_written(
    tmp_path: Path, name: str, message: str
) -> None:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("bot.py", BOT)
        archive.writestr(name, BOT)
    with pytest.raises(SubmissionError, match=message):
        store_submission(written(tmp_path, data.getvalue()), tmp_path / "store", entry="bot.py")
    assert not (tmp_path / "store").exists()


def test_the_longest_name_and_path_are_installed(tmp_path: Path) -> None:
    longest = "/".join(["d" * 99] * 10) + "/" + "f" * 24
    assert len(longest) == MAX_PATH_BYTES
    files = {"bot.py": BOT, "n" * MAX_NAME_BYTES: b"1", longest: b"2"}
    artifact = install(Submission(files, "bot.py"), tmp_path)
    assert (artifact.folder / longest).read_bytes() == b"2"
    assert (artifact.folder / ("n" * MAX_NAME_BYTES)).read_bytes() == b"1"


@pytest.mark.parametrize("order", [("x", "x/y"), ("x/y", "x"), ("x/y/z", "x/y")])
def test_a_name_that_is_a_file_and_a_folder_is_refused(tmp_path: Path, order: tuple[str, str]) -> None:
    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("bot.py", BOT)
        for name in order:
            archive.writestr(name, BOT)
    both = min(order, key=len)
    with pytest.raises(SubmissionError, match=f"'{both}' is a file and a folder"):
        store_submission(written(tmp_path, data.getvalue()), tmp_path / "store", entry="bot.py")
    assert not (tmp_path / "store").exists()


def test_an_install_that_fails_part_way_leaves_nothing(tmp_path: Path) -> None:
    # past the checks (a submission made in code): the file system refuses 'x/y' after 'x' is written
    with pytest.raises(OSError):
        install(Submission({"x": b"1" * 1_000_000, "x/y": b"2"}, "x"), tmp_path)
    assert list((tmp_path / "artifacts").iterdir()) == []
