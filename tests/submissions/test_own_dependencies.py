"""Bots bring their own dependencies: a Python bot its packages in ``vendor/`` or as wheels in
``wheels/`` (installed into ``vendor/`` when the submission is read, nothing of them run), a Node
bot its unbundled ``node_modules``; what does not fit is refused with the limit and what to do.

The Node bot is the Node starter's ``src/bot.js`` run as it is, beside the starter's own
dependencies as ``npm ci`` installed them for its build (tests/starter_kits.py): no network here.
Its games are played in the real bubblewrap sandbox, through ``arena play``, ``arena bot submit``
and a tournament."""

from __future__ import annotations

import io
import json
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from fleet import arena, submitted_and_played
from starter_kits import KITS, StarterKits

from arena.submissions import SubmissionError, SubmissionLimits, read_submission

ROOT = Path(__file__).resolve().parents[2]
VENDORED = ROOT / "tests" / "bots" / "vendored"
UNBUNDLED = ROOT / "tests" / "bots" / "unbundled_node"
PICKER = (VENDORED / "vendor" / "picker" / "__init__.py").read_bytes()
WHEEL = "picker-1.0-py3-none-any.whl"
BUBBLEWRAP_MISSING = "bots run WITHOUT a sandbox"
"""What ``arena play`` says where bubblewrap cannot run and it falls back to none."""

# Per game: the seats ("BOT" for the Node bot) and how many games to play.
MATCHES = {
    "edible": (["BOT", "builtin:random"], 4),
    "believe": (["BOT", "builtin:random", "BOT", "builtin:random"], 3),
    "kozel": (["BOT", "builtin:random", "BOT", "builtin:random"], 3),  # a team of two
}


def wheel_of_picker(name: str = WHEEL, extra: dict[str, bytes] | None = None) -> bytes:
    """A wheel of the vendored bot's ``picker`` package, made here: a zip with its dist-info."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("picker/__init__.py", PICKER)
        zipped.writestr("picker-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n")
        zipped.writestr(
            "picker-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: picker\nVersion: 1.0\n"
        )
        zipped.writestr("picker-1.0.dist-info/RECORD", "")
        for member, data in (extra or {}).items():
            zipped.writestr(member, data)
    return out.getvalue()


def wheeled_bot(folder: Path, wheels: dict[str, bytes]) -> Path:
    """The vendored bot without its vendor/, its package shipped as ``wheels`` instead."""
    folder.mkdir(parents=True)
    shutil.copy(VENDORED / "bot.py", folder)
    (folder / "wheels").mkdir()
    for name, data in wheels.items():
        (folder / "wheels" / name).write_bytes(data)
    return folder


def play(bot: Path, folder: Path, *extra: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """``arena play edible BOT builtin:random`` in the default sandbox, and the bot's log."""
    run = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", "edible", str(bot), "builtin:random", "--games", "3",
         "--quiet", "--replays", str(folder / "replays"), "--logs", str(folder / "logs"), *extra],
        capture_output=True, text=True, timeout=300, cwd=folder,
    )  # fmt: skip
    assert BUBBLEWRAP_MISSING not in run.stderr or extra, run.stderr  # the real sandbox, unless asked
    logs = folder / "logs" / "seat0-bot.log"
    return run, logs.read_text() if logs.exists() else ""


def statuses(replays: Path, seats: list[str], spec: str) -> list[str]:
    """The statuses of the seats where ``spec`` played, game by game, in the one replay."""
    record = json.loads(next(replays.glob("*.json")).read_text())
    mine = {agent for agent, seat in enumerate(record["seats"]) if seat["spec"] == spec}
    assert mine == {agent for agent, seat in enumerate(seats) if seat == "BOT"}
    return [
        played["statuses"][seat]
        for played in record["games"]
        for seat, agent in enumerate(played["seating"])
        if agent in mine
    ]


# -- wheels, read without running anything --


def test_a_wheel_is_installed_into_vendor_in_its_place(tmp_path: Path) -> None:
    extra = {
        "picker-1.0.data/purelib/picker_extra.py": b"EXTRA = 1\n",
        "picker-1.0.data/scripts/picker-tool": b"#!/bin/sh\n",  # a command: left out
    }
    folder = wheeled_bot(tmp_path / "bot", {WHEEL: wheel_of_picker(extra=extra)})
    files = read_submission(folder)
    assert sorted(files) == [
        "bot.py",
        "vendor/picker-1.0.dist-info/METADATA",
        "vendor/picker-1.0.dist-info/RECORD",
        "vendor/picker-1.0.dist-info/WHEEL",
        "vendor/picker/__init__.py",
        "vendor/picker_extra.py",
    ]
    assert files["vendor/picker/__init__.py"] == PICKER


@pytest.mark.parametrize(
    "name",
    [
        "picker-1.0-py3-none-any.whl",
        "picker-1.0-py2.py3-none-any.whl",
        "picker-1.0-1build-py311-none-any.whl",
        "picker-1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
        "picker-1.0-cp38-abi3-manylinux1_x86_64.whl",
    ],
)
def test_wheels_the_runtime_loads_are_taken(tmp_path: Path, name: str) -> None:
    files = read_submission(wheeled_bot(tmp_path / "bot", {name: wheel_of_picker(name)}))
    assert "vendor/picker/__init__.py" in files and not any(path.startswith("wheels/") for path in files)


@pytest.mark.parametrize(
    "tags",
    [
        "cp312-cp312-manylinux2014_x86_64",  # another Python
        "cp311-cp311-win_amd64",
        "cp311-cp311-macosx_11_0_arm64",
        "cp311-cp311-musllinux_1_1_x86_64",  # another C library
        "cp311-cp311-manylinux2014_aarch64",  # another processor
        "cp311-cp311-manylinux_2_999_x86_64",  # a newer glibc than the host's
        "cp311-cp311-linux_x86_64",  # built for one machine's libraries
        "py2-none-any",
    ],
)
def test_wheels_the_runtime_cannot_load_are_refused_naming_the_wheel_and_why(
    tmp_path: Path, tags: str
) -> None:
    name = f"picker-1.0-{tags}.whl"
    folder = wheeled_bot(tmp_path / "bot", {name: wheel_of_picker(name)})
    with pytest.raises(SubmissionError) as refused:
        read_submission(folder)
    assert str(refused.value).startswith(f"wheels/{name}: built for {tags}, which bots cannot load")
    assert "py3-none-any" in str(refused.value) and "manylinux" in str(refused.value)


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("picker-1.0.tar.gz", b"\x1f\x8b", "a source distribution (sdist): building it runs its own code"),
        ("picker-1.0.zip", wheel_of_picker(), "a source distribution (sdist)"),
        ("notes.txt", b"pip install picker\n", "wheels/ holds wheels (.whl files) only"),
        ("picker.whl", wheel_of_picker(), "not a wheel's file name"),
        (WHEEL, b"not a zip", "not a readable zip file"),
        (WHEEL, wheel_of_picker(extra={"../../escape.py": b""}), "'..' would write outside"),
        (WHEEL, wheel_of_picker(extra={"/etc/x.py": b""}), "absolute paths are not allowed"),
        (WHEEL, wheel_of_picker(extra={"picker-1.0.data/data/share/x": b""}), "outside the packages'"),
    ],
)
def test_what_is_not_an_installable_wheel_is_refused_naming_it(
    tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    folder = wheeled_bot(tmp_path / "bot", {name: data})
    with pytest.raises(SubmissionError, match="^wheels/" + name.replace(".", r"\.")) as refused:
        read_submission(folder)
    assert message in str(refused.value)


def test_a_wheel_without_its_dist_info_is_refused(tmp_path: Path) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zipped:
        zipped.writestr("picker/__init__.py", PICKER)
    with pytest.raises(
        SubmissionError, match=f"wheels/{WHEEL}: not a wheel: it holds no NAME.dist-info/WHEEL"
    ):
        read_submission(wheeled_bot(tmp_path / "bot", {WHEEL: out.getvalue()}))


def test_a_wheel_may_not_overwrite_a_vendored_file(tmp_path: Path) -> None:
    folder = wheeled_bot(tmp_path / "bot", {WHEEL: wheel_of_picker()})
    shutil.copytree(VENDORED / "vendor", folder / "vendor")
    with pytest.raises(SubmissionError, match=f"wheels/{WHEEL}: 'vendor/picker/__init__.py': the same file"):
        read_submission(folder)


def test_what_a_wheel_unpacks_to_counts_against_the_limits(tmp_path: Path) -> None:
    big = {"picker/data.bin": bytes(5000)}  # compresses to little: counted as unpacked
    folder = wheeled_bot(tmp_path / "bot", {WHEEL: wheel_of_picker(extra=big)})
    assert (folder / "wheels" / WHEEL).stat().st_size < 4000
    with pytest.raises(SubmissionError, match=f"wheels/{WHEEL}: the submission is over the 4000-byte limit"):
        read_submission(folder, SubmissionLimits(max_total_bytes=4000))


# -- the limits, and what each refusal says to do --


def test_too_many_entries_are_refused_saying_what_to_do(tmp_path: Path) -> None:
    limit = SubmissionLimits().max_files
    folder = tmp_path / "bot"
    (folder / "node_modules").mkdir(parents=True)
    (folder / "bot.js").write_text("")
    for number in range(limit - 2):  # with bot.js and node_modules/: the limit exactly
        (folder / "node_modules" / f"{number}.js").write_text("")
    assert len(read_submission(folder)) == limit - 1
    (folder / "node_modules" / "one-more.js").write_text("")
    with pytest.raises(SubmissionError) as refused:
        read_submission(folder)
    assert str(refused.value).startswith(f"more than {limit} entries (files and folders): bundle a Node bot")
    assert "leave out of vendor/ and node_modules what the bot does not import" in str(refused.value)


def test_a_path_too_deep_is_refused_saying_what_to_do(tmp_path: Path) -> None:
    depth = SubmissionLimits().max_depth
    folder = tmp_path / "bot"
    deepest = folder.joinpath(*["d"] * (depth - 1))
    deepest.mkdir(parents=True)
    (deepest / "x.js").write_text("")
    assert list(read_submission(folder)) == ["/".join(["d"] * (depth - 1) + ["x.js"])]
    (deepest / "e").mkdir()
    (deepest / "e" / "x.js").write_text("")
    with pytest.raises(
        SubmissionError, match=rf"{depth + 1} levels deep, at most {depth}: flatten the folders"
    ):
        read_submission(folder)


def test_the_byte_limit_says_what_to_do(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "node_modules").mkdir(parents=True)
    (folder / "node_modules" / "big.js").write_bytes(bytes(600))
    (folder / "bot.js").write_bytes(bytes(600))
    with pytest.raises(SubmissionError, match="over the 1000-byte limit: bundle a Node bot into one file"):
        read_submission(folder, SubmissionLimits(max_total_bytes=1000))


def test_npm_command_links_are_left_out_and_other_links_refused(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "node_modules" / ".bin").mkdir(parents=True)
    (folder / "node_modules" / "tool.js").write_text("")
    (folder / "bot.js").write_text("")
    (folder / "node_modules" / ".bin" / "tool").symlink_to("../tool.js")
    assert sorted(read_submission(folder)) == ["bot.js", "node_modules/tool.js"]
    (folder / "node_modules" / "tool2.js").symlink_to("tool.js")
    with pytest.raises(SubmissionError, match=r"'node_modules/tool2\.js': symbolic links are not allowed"):
        read_submission(folder)


@pytest.mark.parametrize(
    ("link", "refused"), [("node_modules/.bin/tool", False), ("node_modules/tool2.js", True)]
)
def test_in_a_zip_too_only_npm_command_links_are_left_out(tmp_path: Path, link: str, refused: bool) -> None:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zipped:  # as `zip -r -y` stores a link: its target as its data
        zipped.writestr("bot.js", "")
        zipped.writestr("node_modules/tool.js", "")
        member = zipfile.ZipInfo(link)
        member.external_attr = (stat.S_IFLNK | 0o777) << 16
        zipped.writestr(member, "../tool.js")
    (tmp_path / "bot.zip").write_bytes(out.getvalue())
    if refused:
        with pytest.raises(
            SubmissionError, match=r"'node_modules/tool2\.js': symbolic links are not allowed"
        ):
            read_submission(tmp_path / "bot.zip")
    else:
        assert sorted(read_submission(tmp_path / "bot.zip")) == ["bot.js", "node_modules/tool.js"]


# -- in the sandbox --


def test_a_python_bot_plays_with_its_vendored_package_sandboxed_or_not(tmp_path: Path) -> None:
    run, log = play(VENDORED / "bot.py", tmp_path)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert "vendored: picker 1.0 from /bot/vendor/picker/__init__.py" in log  # in the sandbox
    assert statuses(tmp_path / "replays", ["BOT", "random"], str(VENDORED / "bot.py")) == ["ok"] * 3
    for how in (["--sandbox", "none"], ["--in-process"]):
        unsandboxed = tmp_path / how[0].strip("-")
        unsandboxed.mkdir()
        run, log = play(VENDORED / "bot.py", unsandboxed, *how)
        assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
        said = log + run.stderr  # in the arena's process a bot's stderr is the arena's
        assert f"vendored: picker 1.0 from {VENDORED / 'vendor' / 'picker' / '__init__.py'}" in said, how


def test_a_python_bot_with_a_manifest_finds_its_vendored_package(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    shutil.copytree(VENDORED, folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "arena-bot.toml").write_text('run = ["python3", "bot.py"]\n')
    run, log = play(folder, tmp_path)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert "vendored: picker 1.0 from /bot/vendor/picker/__init__.py" in log
    assert statuses(tmp_path / "replays", ["BOT", "random"], str(folder)) == ["ok"] * 3


def test_a_python_bot_shipping_a_wheel_plays_and_is_stored_installed(tmp_path: Path) -> None:
    folder = wheeled_bot(tmp_path / "bot", {WHEEL: wheel_of_picker()})
    run, log = play(folder / "bot.py", tmp_path)
    assert run.returncode == 0, f"{run.stdout}\n{run.stderr}"
    assert "vendored: picker 1.0 from /bot/vendor/picker/__init__.py" in log
    assert statuses(tmp_path / "replays", ["BOT", "random"], str(folder / "bot.py")) == ["ok"] * 3

    home = tmp_path / "home"
    submit = arena("bot", "submit", str(folder), "--name", "wheeled", "--game", "edible", home=home)
    assert submit.returncode == 0, f"{submit.stdout}\n{submit.stderr}"
    assert "passed validation" in submit.stdout
    [artifact] = (home / "artifacts").iterdir()
    stored = sorted(path.relative_to(artifact).as_posix() for path in artifact.rglob("*") if path.is_file())
    info = [f"vendor/picker-1.0.dist-info/{name}" for name in ("METADATA", "RECORD", "WHEEL")]
    assert stored == ["bot.py", *info, "vendor/picker/__init__.py"]  # installed: no wheels/


@pytest.fixture(scope="module")
def unbundled_node(starter_kits: StarterKits, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Node starter's bot unbundled: src/bot.js, the protocol's .proto and the dependencies of
    its package-lock.json (not its build tools) in node_modules, as ``npm install`` leaves them."""
    starter_kits.built("node")  # its npm ci fills the kit's node_modules
    kit = KITS["node"].folder
    folder = tmp_path_factory.mktemp("unbundled") / "bot"
    shutil.copytree(UNBUNDLED, folder)
    shutil.copy(kit / "src" / "bot.js", folder)
    shutil.copy(ROOT / "proto" / "arena" / "wire" / "v1" / "arena.proto", folder)
    packages = json.loads((kit / "package-lock.json").read_text())["packages"]
    for package, entry in packages.items():
        if package and not entry.get("dev"):
            shutil.copytree(kit / package, folder / package, symlinks=True, dirs_exist_ok=True)
    (folder / "node_modules" / ".bin").mkdir()
    (folder / "node_modules" / ".bin" / "proto-loader-gen-types").symlink_to(
        "../@grpc/proto-loader/build/bin/proto-loader-gen-types.js"
    )
    return folder


def test_a_real_node_modules_fits_the_limits_that_refused_it(unbundled_node: Path) -> None:
    files = read_submission(unbundled_node)
    assert {"node_modules/@grpc/grpc-js/package.json", "node_modules/@grpc/proto-loader/package.json"} <= set(
        files
    )
    assert len(files) > 1000 and sum(map(len, files.values())) > 8_000_000  # a real tree, not a token one
    with pytest.raises(SubmissionError, match="more than 200 entries"):
        read_submission(unbundled_node, SubmissionLimits(max_files=200))  # the limit before


@pytest.mark.parametrize("game", sorted(MATCHES))
def test_an_unbundled_node_bot_plays_every_game_ok(unbundled_node: Path, tmp_path: Path, game: str) -> None:
    seats, games = MATCHES[game]
    bots = [str(unbundled_node) if seat == "BOT" else seat for seat in seats]
    run = subprocess.run(
        [sys.executable, "-m", "arena.cli", "play", game, *bots, "--games", str(games), "--seed", "3",
         "--replays", str(tmp_path / "replays"), "--quiet"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 0 and BUBBLEWRAP_MISSING not in run.stderr, f"{run.stdout}\n{run.stderr}"
    assert statuses(tmp_path / "replays", seats, str(unbundled_node)) == ["ok"] * games * seats.count("BOT")


@pytest.mark.parametrize("game", sorted(MATCHES))
def test_an_unbundled_node_bot_is_submitted_and_plays_a_tournament_ok(
    unbundled_node: Path, tmp_path: Path, game: str
) -> None:
    seen = submitted_and_played(tmp_path / "home", {"unbundled": unbundled_node}, game, 2)
    assert seen and seen == [("unbundled", "ok")] * len(seen), seen


def refused_folder(tmp_path: Path, kind: str) -> Path:
    """A bot folder over one limit, or shipping what cannot be installed."""
    if kind == "sdist":
        return wheeled_bot(tmp_path / "bot", {"picker-1.0.tar.gz": b"\x1f\x8b"})
    if kind == "platform":
        return wheeled_bot(tmp_path / "bot", {"picker-1.0-cp311-cp311-win_amd64.whl": wheel_of_picker()})
    folder = tmp_path / "bot"
    shutil.copytree(UNBUNDLED, folder)
    (folder / "bot.js").write_text("")
    if kind == "entries":
        (folder / "node_modules").mkdir()
        for number in range(SubmissionLimits().max_files):
            (folder / "node_modules" / f"{number}.js").write_text("")
    else:
        deep = folder.joinpath("node_modules", *["node_modules"] * SubmissionLimits().max_depth)
        deep.mkdir(parents=True)
    return folder


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("entries", "more than 4096 entries (files and folders): bundle a Node bot into one file"),
        ("depth", "33 levels deep, at most 32: flatten the folders"),
        ("sdist", "wheels/picker-1.0.tar.gz: a source distribution (sdist)"),
        ("platform", "wheels/picker-1.0-cp311-cp311-win_amd64.whl: built for cp311-cp311-win_amd64"),
    ],
)
@pytest.mark.parametrize("command", ["play", "submit"])
def test_the_commands_refuse_with_the_limit_and_what_to_do(
    tmp_path: Path, kind: str, message: str, command: str
) -> None:
    folder = refused_folder(tmp_path, kind)
    bot = folder / "bot.py" if (folder / "bot.py").exists() else folder
    if command == "play":
        run, _ = play(bot, tmp_path)
    else:
        run = arena(
            "bot", "submit", str(folder), "--name", "refused", "--game", "edible", home=tmp_path / "home"
        )
    assert run.returncode != 0
    assert message in run.stderr and "Traceback" not in run.stderr, run.stderr
