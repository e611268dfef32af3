"""The Go starter kit (sdk/starters/go): its build makes one static binary and a manifest, and
that folder plays every game in the bubblewrap sandbox with every one of its games ``ok``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KIT = Path(__file__).resolve().parents[2] / "sdk" / "starters" / "go"
TOOLS = {
    "go": "golang-go",
    "protoc": "protobuf-compiler",
    "protoc-gen-go": "protoc-gen-go",
    "protoc-gen-go-grpc": "protoc-gen-go-grpc",
}
GO_SOURCES = {
    "/usr/share/gocode/src/google.golang.org/grpc": "golang-google-grpc-dev",
    "/usr/share/gocode/src/google.golang.org/protobuf": "golang-google-protobuf-dev",
}


@pytest.fixture(scope="module")
def go_bot(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The kit built by its own build.sh into a fresh folder: the bot folder a user submits."""
    missing = [package for tool, package in TOOLS.items() if shutil.which(tool) is None]
    missing += [package for folder, package in GO_SOURCES.items() if not Path(folder).is_dir()]
    if missing:
        message = f"the Go starter needs Debian's {' '.join(missing)}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    folder = tmp_path_factory.mktemp("go") / "gobot"
    build = subprocess.run(
        ["bash", str(KIT / "build.sh"), str(folder)], capture_output=True, text=True, timeout=900
    )
    assert build.returncode == 0, build.stdout + build.stderr
    return folder


def test_the_build_makes_one_static_binary_and_its_manifest(go_bot: Path) -> None:
    assert sorted(path.name for path in go_bot.iterdir()) == ["arena-bot.toml", "bot"]
    assert (go_bot / "arena-bot.toml").read_text() == 'run = ["./bot"]\n'
    binary = (go_bot / "bot").read_bytes()
    assert binary[:4] == b"\x7fELF" and os.access(go_bot / "bot", os.X_OK)
    assert b"/lib64/ld-linux" not in binary[:4096]  # no dynamic loader: static (CGO_ENABLED=0)
    assert len(binary) < 16 * 1024 * 1024  # the per-file submission limit


def test_the_build_names_the_debian_packages_when_tools_are_missing(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    for tool in ("dirname", "mktemp", "rm", "mkdir", "cp"):  # what the script needs besides Go
        if found := shutil.which(tool):
            (empty / tool).symlink_to(found)
    build = subprocess.run(
        ["/bin/bash", str(KIT / "build.sh"), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env={"PATH": str(empty)},
        timeout=60,
    )
    assert build.returncode != 0
    assert "golang-go" in build.stderr and "protobuf-compiler" in build.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("game", "opponents", "games"),
    [
        ("edible", ["builtin:random"], 8),
        ("believe", ["builtin:random", "builtin:random"], 6),
        ("kozel", ["builtin:random", "STARTER", "builtin:random"], 6),
    ],
)
def test_the_starter_plays_every_game_in_the_sandbox(
    go_bot: Path, tmp_path: Path, game: str, opponents: list[str], games: int
) -> None:
    bots = [str(go_bot), *(str(go_bot) if bot == "STARTER" else bot for bot in opponents)]
    play = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", game, *bots, "--games", str(games)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert play.returncode == 0, play.stdout + play.stderr
    replay = json.loads(next((tmp_path / "replays").glob(f"{game}-*.json")).read_text())
    starter = {index for index, seat in enumerate(replay["seats"]) if seat["spec"] == str(go_bot)}
    assert len(starter) == bots.count(str(go_bot))
    assert len(replay["games"]) == games
    logs = "\n".join(path.read_text() for path in (tmp_path / "replays").glob(f"{game}-*-logs/*.log"))
    for record in replay["games"]:
        # seating[seat] is the entrant playing that seat; statuses are by seat.
        statuses = [
            record["statuses"][seat] for seat, entrant in enumerate(record["seating"]) if entrant in starter
        ]
        assert statuses == ["ok"] * len(starter), (record["index"], statuses, logs[-3000:])
        assert record["faults"] == [], logs[-3000:]
