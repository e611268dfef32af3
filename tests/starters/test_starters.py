"""The starter kits (sdk/starters/node, sdk/starters/go): each build.sh makes one submission folder
(the bot and its ``arena-bot.toml``) within the submission limits, that plays every game with every
one of its games ``ok`` in the default bubblewrap sandbox, passes every situation of ``arena bot
check``, and is accepted by ``arena bot submit`` and plays a tournament.

The kits are built once per session by the ``starter_kits`` fixture (tests/conftest.py); without a
kit's tools its tests skip, except under CI (``CI=true``), where they fail."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fleet import submitted_and_played
from starter_kits import KITS, StarterKits

from arena.checks.situations import situations_of
from arena.games.registry import get_game
from arena.submissions import SubmissionLimits

# Per game: the seats ("STARTER" for the kit's bot) and how many games to play.
MATCHES = {
    "edible": (["STARTER", "builtin:random"], 8),
    "believe": (["STARTER", "builtin:random", "STARTER", "builtin:random"], 6),
    "kozel": (["STARTER", "builtin:random", "STARTER", "builtin:random"], 6),  # a team of two
}


def play(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """An ``arena`` command run in ``cwd`` (where ``arena play`` writes its replays)."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args], cwd=cwd, capture_output=True, text=True, timeout=600
    )


@pytest.mark.parametrize("kit", sorted(KITS))
def test_the_build_makes_the_bot_and_its_manifest_within_the_submission_limits(
    starter_kits: StarterKits, kit: str
) -> None:
    folder = starter_kits.built(kit)
    files = sorted(path for path in folder.rglob("*") if path.is_file())
    assert tuple(path.relative_to(folder).as_posix() for path in files) == KITS[kit].files
    assert (folder / "arena-bot.toml").read_text() == KITS[kit].manifest
    limits, sizes = SubmissionLimits(), [path.stat().st_size for path in files]
    assert len(files) <= limits.max_files
    assert max(sizes) <= limits.max_file_bytes and sum(sizes) <= limits.max_total_bytes


def test_the_node_build_is_one_bundle_with_the_protocol_in_it(starter_kits: StarterKits) -> None:
    # The protocol is embedded: the bundle needs no .proto (nor node_modules) beside it.
    assert "package arena.wire.v1" in (starter_kits.built("node") / "bot.js").read_text()


def test_the_go_build_is_one_static_binary(starter_kits: StarterKits) -> None:
    bot = starter_kits.built("go") / "bot"
    binary = bot.read_bytes()
    assert binary[:4] == b"\x7fELF" and os.access(bot, os.X_OK)
    assert b"/lib64/ld-linux" not in binary[:4096]  # no dynamic loader: static (CGO_ENABLED=0)


def test_the_go_build_names_the_debian_packages_when_tools_are_missing(tmp_path: Path) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    for tool in ("dirname", "mktemp", "rm", "mkdir", "cp"):  # what the script needs besides Go
        if found := shutil.which(tool):
            (empty / tool).symlink_to(found)
    build = subprocess.run(
        ["/bin/bash", str(KITS["go"].folder / "build.sh"), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env={"PATH": str(empty)},
        timeout=60,
    )
    assert build.returncode != 0
    assert "golang-go" in build.stderr and "protobuf-compiler" in build.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("game", sorted(MATCHES))
@pytest.mark.parametrize("kit", sorted(KITS))
def test_the_starter_plays_every_game_ok_in_the_sandbox(
    starter_kits: StarterKits, tmp_path: Path, kit: str, game: str
) -> None:
    folder = starter_kits.built(kit)
    seats, games = MATCHES[game]
    bots = [str(folder) if seat == "STARTER" else seat for seat in seats]
    replays = tmp_path / "replays"
    run = play(
        "play",
        game,
        *bots,
        "--games",
        str(games),
        "--seed",
        "11",
        "--replays",
        str(replays),
        "--quiet",
        cwd=tmp_path,
    )
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    record = json.loads(next(replays.glob(f"{game}-*.json")).read_text())
    starters = {agent for agent, seat in enumerate(seats) if seat == "STARTER"}
    assert {agent for agent, seat in enumerate(record["seats"]) if seat["spec"] == str(folder)} == starters
    assert len(record["games"]) == games
    logs = "\n".join(path.read_text() for path in replays.glob(f"{game}-*-logs/*.log"))
    for played in record["games"]:
        # seating[seat] is the agent playing that seat; statuses are by seat
        statuses = [
            played["statuses"][seat] for seat, agent in enumerate(played["seating"]) if agent in starters
        ]
        assert statuses == ["ok"] * len(starters), (played["index"], statuses, logs[-3000:])
        assert played["faults"] == [], (played["faults"], logs[-3000:])


@pytest.mark.parametrize("game", sorted(MATCHES))
@pytest.mark.parametrize("kit", sorted(KITS))
def test_the_starter_passes_every_check(
    starter_kits: StarterKits, tmp_path: Path, kit: str, game: str
) -> None:
    run = play("bot", "check", str(starter_kits.built(kit)), "--game", game, cwd=tmp_path)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    situations = [situation.name for situation in situations_of(get_game(game))]
    lines = run.stdout.splitlines()
    assert [line for line in lines if line.startswith(("pass ", "FAIL "))] == [
        f"pass  {game}: {name}" for name in situations
    ]
    assert f"{game}: {len(situations)} situations, all passed" in lines[-1]


@pytest.mark.parametrize("kit", sorted(KITS))
def test_the_starter_passes_validation(starter_kits: StarterKits, tmp_path: Path, kit: str) -> None:
    folder = starter_kits.built(kit)
    run = play("bot", "validate", str(folder), "--game", "believe", "--store", "store", cwd=tmp_path)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert "validation PASSED" in run.stdout


@pytest.mark.parametrize(("game", "games"), [("edible", 4), ("kozel", 2)])
def test_both_starters_are_submitted_and_play_a_tournament_with_every_game_ok(
    starter_kits: StarterKits, tmp_path: Path, game: str, games: int
) -> None:
    """On the embedded default (SQLite in ``$ARENA_HOME``): ``arena bot submit`` accepts both
    starters, and a tournament of them and a built-in runs to the end with their every game ok."""
    kits = {kit: starter_kits.built(kit) for kit in sorted(KITS)}
    seen = submitted_and_played(tmp_path / "home", kits, game, games)
    assert {name for name, _ in seen} == set(KITS)  # both played
    assert [status for _, status in seen] == ["ok"] * len(seen), seen
