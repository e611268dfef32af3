"""Odd zips uploaded to a real ``arena serve``: a file that is also a folder, names and paths too
long for the file system, more entries than the limit (directories too): each a 400 naming the
problem, over the API and from the Submit page, with nothing left in the server's data folder and
the server's memory untouched by a huge zip directory."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import pytest
from served import Client, Web

from arena.submissions import SubmissionLimits

PASSWORD = "correct horse battery"
BOT = b"from arena_sdk import run\n"


def zipped(*members: tuple[str, bytes], big: int = 0) -> bytes:
    """A zip of ``members``, led by ``big`` bytes of zeros (a few KiB compressed) when asked: what
    an install that fails part way writes first."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        if big:
            archive.writestr("big.bin", bytes(big))
        for name, data in members:
            archive.writestr(name, data)
    return out.getvalue()


def folders(count: int) -> bytes:
    """A zip of a bot and ``count`` empty directory entries."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("bot.py", BOT)
        for number in range(count):
            archive.writestr(zipfile.ZipInfo(f"{number:x}/"), b"")
    return out.getvalue()


def leftovers(web: Web) -> list[Path]:
    return sorted((web.home / "artifacts").glob(".incoming-*"))


def peak_rss(web: Web) -> int:
    """The server process's peak resident memory so far, in bytes (VmHWM)."""
    status = Path(f"/proc/{web.process.pid}/status").read_text()
    found = re.search(r"^VmHWM:\s+(\d+) kB", status, re.M)
    assert found, status
    return int(found.group(1)) * 1024


ODD = {
    "a file that is also a folder": (
        zipped(("x", BOT), ("x/y", BOT), ("bot.py", BOT), big=15 * 1024 * 1024),
        "'x' is a file and a folder",
    ),
    "a 300-byte name": (
        zipped(("bot.py", BOT), ("n" * 300, BOT), big=15 * 1024 * 1024),
        "over 255 bytes",
    ),
    "a 4,800-byte path": (
        zipped(("bot.py", BOT), ("/".join(["d" * 199] * 23 + ["d" * 200]), BOT), big=15 * 1024 * 1024),
        "path of 4800 bytes",
    ),
}


@pytest.mark.parametrize("case", list(ODD))
def test_an_odd_zip_is_refused_naming_the_problem_and_leaves_nothing(web: Web, case: str) -> None:
    data, problem = ODD[case]
    client = Client(web.base, web.user(f"odd-{len(case)}-{case[2]}"))
    for attempt in range(2):  # twice: the second finds no garbage of the first either
        reply = client.post_multipart(
            "/api/v1/bots", {"game": "edible", "name": f"odd{attempt}"}, {"file": ("bot.zip", data)}
        )
        assert reply.status == 400, reply.text
        assert problem in reply.json()["error"]
        assert leftovers(web) == []
    assert client.get("/api/v1/me").json()["bots"] == []


def test_the_submit_page_shows_the_problem_and_leaves_nothing(web: Web) -> None:
    web.user("paige", PASSWORD)
    client = web.client()
    assert client.log_in("paige", PASSWORD).status == 303
    data, problem = ODD["a file that is also a folder"]
    reply = client.post_multipart(
        "/submit",
        {"csrf": client.csrf("/submit"), "game": "edible", "name": "paige-bot", "entry": ""},
        {"file": ("bot.zip", data)},
    )
    assert reply.status == 400 and reply.headers["content-type"].startswith("text/html")
    assert problem in reply.text.replace("&#39;", "'")
    assert leftovers(web) == []


def test_directory_entries_count_and_a_huge_zip_directory_is_never_read(web: Web) -> None:
    limit = SubmissionLimits().max_files
    client = Client(web.base, web.user("dora"))

    def submit(data: bytes) -> tuple[int, str]:
        reply = client.post_multipart(
            "/api/v1/bots", {"game": "edible", "name": "dirs"}, {"file": ("bot.zip", data)}
        )
        return reply.status, reply.json().get("error", "")

    status, error = submit(folders(limit))  # one entry over: the bot's file and the folders
    assert status == 400 and f"{limit + 1} entries, at most {limit}" in error
    before = peak_rss(web)
    huge = folders(185_000)
    assert len(huge) < 16 * 1024 * 1024
    for _ in range(3):
        status, error = submit(huge)
        assert status == 400 and "185001 entries" in error and f"at most {limit}" in error
    # before: each such upload held about 100 MB (its 185,000 entries read whole); the body is 14 MB
    assert peak_rss(web) - before < 40 * 1024 * 1024
    assert leftovers(web) == []
    assert submit(folders(limit - 1))[0] == 200
