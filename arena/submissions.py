"""Bot submissions: a single file, a zip or a folder, checked and stored immutably by content hash.

The bot is validated in the sandbox before it may play for real (``arena.tournament.validation``).
Extraction never trusts the archive: every entry is checked, and nothing is written until the whole
submission has been read and checked. A Python bot brings its dependencies in ``vendor/`` or as wheels
in ``wheels/`` (installed into ``vendor/`` from the files themselves), a Node bot its
``node_modules``. A checked submission travels as one archive (``archive``: the same files always
make the same bytes) and is read back under the same checks (``unarchive``).

What is refused, in full: docs/sandbox.md.
"""

from __future__ import annotations

import hashlib
import io
import lzma
import os
import shutil
import stat
import struct
import sys
import tempfile
import zipfile
import zlib
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from arena.launch import VENDOR
from arena.manifest import MANIFEST, ManifestError, executables, parse_manifest

ENTRY_CANDIDATES = ("bot.py", "main.py")


class SubmissionError(Exception):
    """A submission that cannot be accepted; the message says what is wrong."""


@dataclass(frozen=True)
class SubmissionLimits:
    """What a submission may hold, sized for real dependency trees: a Node bot's unbundled
    ``node_modules`` of @grpc/grpc-js 1.14 and @grpc/proto-loader 0.8 is 1,169 files in 148
    folders (1,317 entries), 9.9 MB, 11 levels deep at most; networkx 3.6, a large pure-Python
    library, unpacks to 654 entries and 7.0 MB."""

    max_total_bytes: int = 16 * 1024 * 1024
    """Room for one static binary with gRPC in it (a Go bot's is about 8 MiB), or a gRPC
    ``node_modules`` (9.9 MB) with a bot's own files beside it."""
    max_file_bytes: int = 16 * 1024 * 1024
    max_files: int = 4096
    """Entries of every kind: a zip's directory entries count as its files do. Three gRPC
    ``node_modules``' worth (1,317 entries each): room for one with vendored libraries beside it,
    while a zip directory this long (``_check_directory``) is at most 8.6 MB read into memory."""
    max_depth: int = 32
    """Folders and the file in a path: a gRPC ``node_modules`` goes 11 deep; an npm tree nests a
    package's own ``node_modules`` 2 levels deeper each time versions clash."""


FIT_ADVICE = (
    "bundle a Node bot into one file (sdk/starters/node/build.sh does), and leave out of vendor/ "
    "and node_modules what the bot does not import (tests, docs, type definitions, source maps)"
)
"""What a bot over the entry or byte limits can do about it."""


@dataclass(frozen=True)
class Artifact:
    """A stored submission: its content hash, the read-only folder holding it, its entry point."""

    digest: str
    folder: Path
    entry: str

    @classmethod
    def stored(cls, home: Path, spec: str, entry: str) -> Artifact:
        """The stored artifact of a version's ``artifact:DIGEST`` spec."""
        digest = spec.removeprefix("artifact:")
        return cls(digest=digest, folder=home / "artifacts" / digest, entry=entry)


MAX_NAME_BYTES = 255
"""The longest name of a file or folder that Linux file systems take (NAME_MAX)."""
MAX_PATH_BYTES = 1024
"""The longest path in a submission: well inside PATH_MAX (4096) wherever its folder is."""


def _shown(name: str) -> str:
    """``name`` quoted for a message, cut short if long."""
    return repr(name if len(name) <= 80 else f"{name[:60]}...{name[-10:]}")


def _clean_name(name: str) -> str:
    """A safe relative POSIX path for an archive member, or ``SubmissionError``."""
    if "\\" in name or "\x00" in name:
        raise SubmissionError(f"{_shown(name)}: backslashes and NUL bytes are not allowed in file names")
    path = PurePosixPath(name)
    if path.is_absolute() or (path.parts and path.parts[0].endswith(":")):
        raise SubmissionError(f"{name!r}: absolute paths are not allowed")
    if any(part == ".." for part in path.parts):
        raise SubmissionError(f"{name!r}: '..' would write outside the submission (zip-slip)")
    parts = [part for part in path.parts if part not in ("", ".")]
    if not parts:
        raise SubmissionError(f"{name!r}: empty file name")
    clean = "/".join(parts)
    longest = max(len(os.fsencode(part)) for part in parts)
    if longest > MAX_NAME_BYTES:
        raise SubmissionError(
            f"{_shown(name)}: a name of {longest} bytes in it, over {MAX_NAME_BYTES} bytes (the file "
            "system's limit)"
        )
    if len(os.fsencode(clean)) > MAX_PATH_BYTES:
        raise SubmissionError(
            f"{_shown(name)}: a path of {len(os.fsencode(clean))} bytes, over the {MAX_PATH_BYTES}-byte limit"
        )
    return clean


class _Collector:
    """Gathers files in memory, enforcing the limits as it goes."""

    def __init__(self, limits: SubmissionLimits) -> None:
        self.limits = limits
        self.files: dict[str, bytes] = {}
        self.folders: set[str] = set()
        """Every folder a file is in."""
        self.entries = 0
        self.total = 0

    def entry(self, name: str) -> str:
        """Count an entry of any kind (a file or a folder) against the limits; its clean name."""
        clean = _clean_name(name)
        depth = clean.count("/") + 1
        if depth > self.limits.max_depth:
            raise SubmissionError(
                f"{_shown(name)}: {depth} levels deep, at most {self.limits.max_depth}: flatten the "
                "folders (a fresh npm install hoists packages to the top of node_modules; npm dedupe)"
            )
        self.entries += 1
        if self.entries > self.limits.max_files:
            raise SubmissionError(
                f"more than {self.limits.max_files} entries (files and folders): {FIT_ADVICE}"
            )
        return clean

    def add(self, name: str, read: Any, declared: int) -> None:
        clean = self.entry(name)
        if clean in self.files:
            raise SubmissionError(f"{_shown(name)}: the same file appears twice")
        parents = [str(parent) for parent in PurePosixPath(clean).parents][:-1]
        both = clean if clean in self.folders else next((p for p in parents if p in self.files), None)
        if both is not None:
            raise SubmissionError(f"{both!r} is a file and a folder: a file system holds one of them")
        if declared > self.limits.max_file_bytes:
            raise SubmissionError(
                f"{_shown(name)}: {declared} bytes, over the {self.limits.max_file_bytes}-byte limit"
            )
        # Read at most one byte past the limit: a lying header (a zip bomb) is caught too.
        data = read(self.limits.max_file_bytes + 1)
        if len(data) > self.limits.max_file_bytes:
            raise SubmissionError(f"{_shown(name)}: over the {self.limits.max_file_bytes}-byte limit")
        self.total += len(data)
        if self.total > self.limits.max_total_bytes:
            raise SubmissionError(
                f"the submission is over the {self.limits.max_total_bytes}-byte limit: {FIT_ADVICE}"
            )
        self.files[clean] = data
        self.folders.update(parents)

    def add_file(self, name: str, data: bytes) -> None:
        """Add a file held in memory, counting its folders not seen yet as entries (as a folder
        of these files would hold them)."""
        new = {str(parent) for parent in PurePosixPath(name).parents if str(parent) != "."} - self.folders
        for folder in sorted(new):
            self.entry(folder)
        self.folders.update(new)
        self.add(name, io.BytesIO(data).read, len(data))


_END = struct.Struct("<4s4H2LH")
"""A zip's end-of-central-directory record: signature, disk numbers, entry counts (this disk's and
in all), the directory's size and offset, the comment's length."""
_END64_LOCATOR = struct.Struct("<4sLQL")
"""What precedes the end record in a ZIP64 file: signature, disk, where the ZIP64 end record is."""
_END64 = struct.Struct("<4sQ2H2L4Q")
"""A ZIP64 end record: signature, size, versions, disk numbers, entry counts, directory size and offset."""
_HEADER_BYTES = 46 + MAX_PATH_BYTES + 1024
"""The most an entry of the zip directory takes here: its fixed part, its name, room for extra
fields and a comment."""


def _check_directory(handle: IO[bytes], name: str, limits: SubmissionLimits) -> None:
    """Refuse a zip whose end record states more entries than the limit, or a directory larger than
    that many entries take (``zipfile`` reads the whole directory into memory on opening, whatever
    the count says). A file without an end record is left to ``zipfile`` to refuse."""
    size = handle.seek(0, os.SEEK_END)
    start = max(0, size - _END.size - 0xFFFF)  # the record and the longest comment
    handle.seek(start)
    tail = handle.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        return
    *_, entries, directory, _, _ = _END.unpack_from(tail, at)
    if (entries == 0xFFFF or directory == 0xFFFFFFFF) and at >= _END64_LOCATOR.size:
        signature, _, where, _ = _END64_LOCATOR.unpack_from(tail, at - _END64_LOCATOR.size)
        handle.seek(where)
        record = handle.read(_END64.size)
        if signature == b"PK\x06\x07" and len(record) == _END64.size and record[:4] == b"PK\x06\x06":
            *_, entries, directory, _ = _END64.unpack(record)
    if entries > limits.max_files:
        raise SubmissionError(
            f"{name}: {entries} entries, at most {limits.max_files} (files and folders) in a "
            f"submission: {FIT_ADVICE}"
        )
    if directory > limits.max_files * _HEADER_BYTES:
        raise SubmissionError(
            f"{name}: a zip directory of {directory} bytes, over the {limits.max_files * _HEADER_BYTES}"
            f"-byte limit of {limits.max_files} entries"
        )


def _read_zip(source: Path | IO[bytes], name: str, collector: _Collector) -> None:
    try:
        with source.open("rb") if isinstance(source, Path) else nullcontext(source) as handle:
            _check_directory(handle, name, collector.limits)
        archive = zipfile.ZipFile(source)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:  # ValueError: a name's bad UTF-8
        raise SubmissionError(f"{name}: not a readable zip file ({error})") from error
    with archive:
        for info in archive.infolist():
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode)
            if info.is_dir():
                collector.entry(info.filename)
                continue
            if kind == stat.S_IFLNK:
                if _npm_command_link(info.filename):
                    continue
                raise SubmissionError(f"{info.filename!r}: symbolic links are not allowed")
            if kind not in (0, stat.S_IFREG):
                raise SubmissionError(f"{info.filename!r}: only regular files are allowed")
            try:
                with archive.open(info) as member:
                    collector.add(info.filename, member.read, info.file_size)
            except _CORRUPT as error:
                raise _corrupt(info.filename, error) from error


_CORRUPT = (
    zipfile.BadZipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    OSError,
    NotImplementedError,
    RuntimeError,
)
"""What reading a damaged or unusual zip member raises: a bad CRC, a broken deflate stream, a
truncated member, a broken bzip2 stream (``OSError``), an unsupported compression method, the
encrypted flag (``RuntimeError``)."""


def _corrupt(name: str, error: Exception) -> SubmissionError:
    if isinstance(error, RuntimeError) and "encrypted" in str(error):
        return SubmissionError(
            f"{name!r}: encrypted zip entries are not supported; zip it without a password"
        )
    return SubmissionError(
        f"{name!r}: the zip entry is damaged or cannot be read ({error or type(error).__name__})"
    )


def _npm_command_link(name: str) -> bool:
    """Whether ``name`` is in a ``node_modules/.bin``: npm's links to its packages' commands, which
    a bot never runs; left out rather than refused (and never followed)."""
    parts = PurePosixPath(name).parts
    return len(parts) >= 3 and parts[-2] == ".bin" and parts[-3] == "node_modules"


def _read_folder(source: Path, collector: _Collector, skip_hidden: bool) -> None:
    for folder, dirs, files in os.walk(source, followlinks=False):
        if skip_hidden:
            dirs[:] = [name for name in dirs if not name.startswith(".")]
            files = [name for name in files if not name.startswith(".")]
        for name in [*dirs, *files]:
            path = Path(folder) / name
            relative = path.relative_to(source).as_posix()
            mode = path.lstat().st_mode
            if stat.S_ISLNK(mode):
                if _npm_command_link(relative):
                    continue
                raise SubmissionError(f"{relative!r}: symbolic links are not allowed")
            if name == "__pycache__" or "/__pycache__/" in f"/{relative}":
                continue
            if stat.S_ISDIR(mode):
                collector.entry(relative)  # as a zip of the folder would hold it
                continue
            if not stat.S_ISREG(mode):
                raise SubmissionError(f"{relative!r}: only regular files are allowed")
            with path.open("rb") as handle:
                collector.add(relative, handle.read, path.stat().st_size)


def read_submission(
    source: Path, limits: SubmissionLimits | None = None, skip_hidden: bool = False
) -> dict[str, bytes]:
    """Every file of a submission (a .py file, a .zip, or a folder), checked, as name -> bytes:
    regular files only, no links, within ``limits``, its wheels installed (``install_wheels``).
    ``skip_hidden`` leaves out a folder's entries whose names start with a dot (a local bot's
    folder may hold .git or .venv)."""
    limits = limits or SubmissionLimits()
    collector = _Collector(limits)
    if source.is_symlink():
        raise SubmissionError(f"{source}: a symbolic link; submit the file itself")
    if source.is_dir():
        _read_folder(source, collector, skip_hidden)
    elif source.suffix == ".zip":
        _read_zip(source, source.name, collector)
    elif source.suffix == ".py" and source.is_file():
        with source.open("rb") as handle:
            collector.add(source.name, handle.read, source.stat().st_size)
    elif not source.exists():
        raise SubmissionError(f"{source}: no such file or folder")
    else:
        raise SubmissionError(f"{source}: submit a .py file, a .zip or a folder")
    if not collector.files:
        raise SubmissionError(f"{source}: the submission holds no files")
    return install_wheels(collector.files, limits)


WHEELS = "wheels"
"""The folder of a Python bot's wheels, beside its entry point, installed into ``vendor/``."""
_SDISTS = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar", ".zip")
_MANYLINUX = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
"""The older manylinux tags and the glibc each stands for."""
RUNTIME = f"CPython {sys.version_info.major}.{sys.version_info.minor} on manylinux x86_64"
"""What a Python bot runs on: the interpreter wheels are chosen for."""


def install_wheels(files: dict[str, bytes], limits: SubmissionLimits) -> dict[str, bytes]:
    """``files`` with each wheel of ``wheels/`` unpacked into ``vendor/`` in its place, as
    ``pip install --no-deps --target vendor`` would lay it out, with nothing of it run: its members
    read under a submission's checks, and the whole within ``limits``. A source distribution is
    refused (building it runs its code), and so is a wheel the bot runtime cannot load."""
    wheels = sorted(name for name in files if name.startswith(f"{WHEELS}/"))
    if not wheels:
        return files
    installed = _Collector(limits)
    for name, data in files.items():
        if not name.startswith(f"{WHEELS}/"):
            installed.add_file(name, data)
    for name in wheels:
        try:
            for path, data in _unpacked_wheel(PurePosixPath(name).name, files[name], limits):
                installed.add_file(f"{VENDOR}/{path}", data)
        except SubmissionError as error:
            raise SubmissionError(f"{name}: {error}") from None
    return installed.files


def _unpacked_wheel(name: str, data: bytes, limits: SubmissionLimits) -> list[tuple[str, bytes]]:
    """The files a wheel installs, by their paths under site-packages: its top folders, and its
    ``.data`` folder's ``purelib`` and ``platlib`` (commands and C headers left out)."""
    if name.endswith(_SDISTS):
        raise SubmissionError(
            "a source distribution (sdist): building it runs its own code, which the arena never "
            "does; ship its wheel (pip wheel --no-deps NAME builds one) or its .py files in vendor/"
        )
    if not name.endswith(".whl"):
        raise SubmissionError(f"{WHEELS}/ holds wheels (.whl files) only")
    _check_tags(name)
    collector = _Collector(limits)
    _read_zip(io.BytesIO(data), "the wheel", collector)
    if not any(path.count("/") == 1 and path.endswith(".dist-info/WHEEL") for path in collector.files):
        raise SubmissionError("not a wheel: it holds no NAME.dist-info/WHEEL")
    unpacked = []
    for path, content in collector.files.items():
        top, _, rest = path.partition("/")
        if not top.endswith(".data"):
            unpacked.append((path, content))
            continue
        scheme, _, inner = rest.partition("/")
        if scheme in ("purelib", "platlib"):
            unpacked.append((inner, content))
        elif scheme not in ("scripts", "headers"):
            raise SubmissionError(
                f"{path!r} installs files outside the packages' folder ({scheme}); put what the bot "
                "needs of the package in vendor/ yourself"
            )
    return unpacked


def _check_tags(name: str) -> None:
    """Refuse a wheel whose file name's tags do not include one the bot runtime loads."""
    parts = name.removesuffix(".whl").split("-")
    if len(parts) not in (5, 6):
        raise SubmissionError("not a wheel's file name (NAME-VERSION-PYTHON-ABI-PLATFORM.whl)")
    pythons, abis, platforms = (tag.split(".") for tag in parts[-3:])
    minor = sys.version_info.minor
    if not any(
        _python_fits(python, abi) and _platform_fits(platform)
        for python in pythons
        for abi in abis
        for platform in platforms
    ):
        raise SubmissionError(
            f"built for {'-'.join(parts[-3:])}, which bots cannot load: they run {RUNTIME} (glibc "
            f"{'.'.join(map(str, _glibc()))}); ship a py3-none-any wheel or one for cp3{minor} and "
            f"manylinux x86_64 (pip download --only-binary=:all: --python-version 3.{minor} "
            "--platform manylinux2014_x86_64 NAME)"
        )


def _python_fits(python: str, abi: str) -> bool:
    minor = sys.version_info.minor
    mine = f"cp3{minor}"
    if abi == "none":
        return python in {"py3", mine, *(f"py3{older}" for older in range(minor + 1))}
    if abi == "abi3":
        return python in {f"cp3{older}" for older in range(2, minor + 1)}
    return abi == mine and python == mine


def _platform_fits(platform: str) -> bool:
    if platform == "any":
        return True
    base = platform.removesuffix("_x86_64")
    if base == platform:
        return False
    needs = _MANYLINUX.get(base)
    if needs is None:
        major, _, minor = base.removeprefix("manylinux_").partition("_")
        if not (base.startswith("manylinux_") and major.isdigit() and minor.isdigit()):
            return False
        needs = (int(major), int(minor))
    return needs <= _glibc()


def _glibc() -> tuple[int, int]:
    """The C library's version here (a sandbox's is the host's); (0, 0) where it is not glibc."""
    try:
        version = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError):
        version = ""
    major, _, minor = version.removeprefix("glibc ").partition(".")
    return (int(major), int(minor)) if major.isdigit() and minor.isdigit() else (0, 0)


def copy_code(source: Path, target: Path) -> None:
    """Copy a bot's code folder to ``target`` under a submission's rules (``read_submission``,
    hidden entries left out), readable by anyone: what a sandbox shows a bot at ``/bot``. The
    copy is made as root, so it must never follow a link out of the bot's folder."""
    files = read_submission(source, skip_hidden=True)
    runnable = _executables(files)
    for name, data in files.items():
        path = target / name
        path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o755 if name in runnable else 0o644)
    target.chmod(0o755)


def _executables(files: dict[str, bytes]) -> set[str]:
    try:
        return executables(files)
    except ManifestError as error:
        raise SubmissionError(str(error)) from None


def choose_entry(files: dict[str, bytes], entry: str | None) -> str:
    """The entry point: the manifest (``arena-bot.toml``, checked) if there is one, else the
    Python file named or the only one."""
    if MANIFEST in files:
        if entry is not None and _clean_name(entry) != MANIFEST:
            raise SubmissionError(f"{MANIFEST} says how this bot runs: leave out the entry point ({entry!r})")
        try:
            parse_manifest(files[MANIFEST], set(files))
        except ManifestError as error:
            raise SubmissionError(str(error)) from None
        return MANIFEST
    nested = [name for name in files if name.endswith(f"/{MANIFEST}")]
    if nested:
        raise SubmissionError(
            f"{nested[0]}: the manifest must be at the top of the submission (zip the folder's "
            "contents, not the folder)"
        )
    if entry is not None:
        clean = _clean_name(entry)
        if clean not in files:
            raise SubmissionError(f"entry point {entry!r} is not in the submission")
        if not clean.endswith(".py"):
            raise SubmissionError(f"entry point {entry!r} is not a .py file")
        return clean
    python_files = [name for name in files if name.endswith(".py")]
    if len(python_files) == 1:
        return python_files[0]
    for candidate in ENTRY_CANDIDATES:
        if candidate in files:
            return candidate
    raise SubmissionError(
        f"say which file is the entry point (--entry); found {len(python_files)} .py files and no "
        f"{MANIFEST} (a bot in another language needs one: see arena runtimes)"
    )


def content_digest(files: dict[str, bytes], entry: str) -> str:
    """SHA-256 over the entry point and every (name, content hash) pair, in name order."""
    digest = hashlib.sha256(f"entry:{entry}\n".encode())
    for name in sorted(files):
        digest.update(f"{name}\0{hashlib.sha256(files[name]).hexdigest()}\n".encode())
    return digest.hexdigest()


@dataclass(frozen=True)
class Submission:
    """A submission's checked files and its entry point: the bot, wherever it is kept."""

    files: dict[str, bytes]
    entry: str

    @property
    def digest(self) -> str:
        return content_digest(self.files, self.entry)


def check_submission(
    source: Path, entry: str | None = None, limits: SubmissionLimits | None = None
) -> Submission:
    """Read and check ``source`` (``read_submission``) and choose its entry point."""
    files = read_submission(source, limits)
    return Submission(files, choose_entry(files, entry))


_EPOCH = (1980, 1, 1, 0, 0, 0)
"""Every member's date in an archive: the earliest a zip can say, so that dates change nothing."""


def archive(files: dict[str, bytes]) -> bytes:
    """A submission's files as a zip, members in name order, uncompressed (the store compresses),
    with no date or owner in it: the same files make the same bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zipped:
        for name in sorted(files):
            member = zipfile.ZipInfo(name, _EPOCH)
            member.create_system = 3  # Unix, as the mode below is, on whatever system made it
            member.external_attr = (stat.S_IFREG | 0o444) << 16
            zipped.writestr(member, files[name])
    return out.getvalue()


def unarchive(data: bytes) -> dict[str, bytes]:
    """The files of an ``archive``, read under a submission's checks as an uploaded zip is."""
    collector = _Collector(SubmissionLimits())
    _read_zip(io.BytesIO(data), "the stored archive", collector)
    return collector.files


def install(submission: Submission, store: Path) -> Artifact:
    """``submission`` as a read-only folder ``store/artifacts/<digest>`` (kept if already there).
    It is written aside and renamed into place, so that processes installing the same submission
    at once all find one whole folder."""
    digest = submission.digest  # a hash over every file: once
    artifacts = store / "artifacts"
    final = artifacts / digest
    if not final.exists():
        artifacts.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".incoming-", dir=artifacts))
        try:
            _write_read_only(submission.files, staging)
        except BaseException:  # nothing of an install that failed part way stays
            _remove_read_only(staging)
            raise
        try:
            staging.rename(final)
        except OSError:  # installed concurrently by someone else: the same content
            _remove_read_only(staging)
    return Artifact(digest=digest, folder=final, entry=submission.entry)


def _write_read_only(files: dict[str, bytes], folder: Path) -> None:
    """Write ``files`` into ``folder``, then make it all read-only (executables kept runnable)."""
    for name, data in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    runnable = {str(folder / name) for name in _executables(files)}
    for place, _, names in os.walk(folder, topdown=False):
        for name in names:
            path = Path(place) / name
            os.chmod(path, 0o555 if str(path) in runnable else 0o444)
        os.chmod(place, 0o555)


def store_submission(
    source: Path, store: Path, entry: str | None = None, limits: SubmissionLimits | None = None
) -> Artifact:
    """Check ``source`` and store it read-only under ``store/artifacts/<digest>`` (kept if already there)."""
    return install(check_submission(source, entry, limits), store)


def _remove_read_only(folder: Path) -> None:
    for path, dirs, _ in os.walk(folder):
        for name in dirs:
            os.chmod(Path(path) / name, 0o755)
    os.chmod(folder, 0o755)
    shutil.rmtree(folder, ignore_errors=True)
