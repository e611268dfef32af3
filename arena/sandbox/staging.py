"""A bot's code folder is staged once per arena process, then linked into each of its sandboxes.

Staging reads the folder under a submission's rules (``arena.submissions.copy_code``) and writes
the copy a sandbox shows the bot at ``/bot``. A bot with many files (a Node bot's unbundled
``node_modules``: some 1,300) paid that for every process it started; now each later process gets
hard links to the staged files, so no byte is read or written again. A folder whose files change
(a local bot edited between matches) is staged again: the key is the folder and every entry's
size, change time and mode. The staged copies are the arena's own, root's and read-only to a bot;
the most recently used ``keep`` stay, and a sandbox's links outlive an evicted copy.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

KEEP = 16
"""Staged folders kept per arena process: at most 256 MiB at 16 MiB each (a submission's byte cap),
room for the bots of a few matches (at most 8 a match)."""


class StagedCode:
    """Bot code folders staged once and linked into sandboxes; safe to share between threads."""

    def __init__(self, prefix: str, keep: int = KEEP) -> None:
        self.prefix = prefix
        """Of each staged folder's name, in the temporary folder (the sandbox's own folders' prefix,
        so that a killed arena's are swept with them)."""
        self.keep = keep
        self._staged: OrderedDict[tuple[str, str], Path] = OrderedDict()
        self._lock = threading.Lock()
        os.register_at_fork(after_in_child=self._forget)

    def _forget(self) -> None:
        """In a forked copy of the arena: its parent's lock may be held, and its folders are not its own."""
        self._staged = OrderedDict()
        self._lock = threading.Lock()

    def place(self, source: Path, target: Path, copy: Callable[[Path, Path], None]) -> None:
        """Fill the empty folder ``target`` with ``source``'s code, as ``copy(source, target)``
        (``arena.submissions.copy_code``) would, calling it once per staging."""
        key = (str(source.resolve()), _fingerprint(source))
        with self._lock:  # held while linking, so that no eviction removes what is being linked
            staged = self._staged.get(key)
            if staged is None:
                staged = Path(tempfile.mkdtemp(prefix=f"{self.prefix}{os.getpid()}-staged-"))
                try:
                    copy(source, staged)
                except BaseException:
                    shutil.rmtree(staged, ignore_errors=True)
                    raise
                self._staged[key] = staged
                while len(self._staged) > self.keep:
                    shutil.rmtree(self._staged.popitem(last=False)[1], ignore_errors=True)
            self._staged.move_to_end(key)
            _link_tree(staged, target)

    def clear(self) -> None:
        """Remove every staged folder."""
        with self._lock:
            while self._staged:
                shutil.rmtree(self._staged.popitem()[1], ignore_errors=True)


def _fingerprint(folder: Path) -> str:
    """What changes when any entry under ``folder`` is added, removed, rewritten or re-moded."""
    digest = hashlib.sha256()
    for root, folders, files in os.walk(folder):
        folders.sort()
        for name in sorted(files) + folders:
            path = os.path.join(root, name)
            seen = os.lstat(path)
            relative = os.path.relpath(path, folder).encode(errors="surrogateescape")
            digest.update(b"%s\0%d\0%d\0%d\n" % (relative, seen.st_size, seen.st_ctime_ns, seen.st_mode))
    return digest.hexdigest()


def _link_tree(staged: Path, target: Path) -> None:
    """``target`` made like ``staged``: its folders made, its files hard links (copies where the two
    are on different file systems)."""
    for root, folders, files in os.walk(staged):
        inside = target / os.path.relpath(root, staged)
        for name in folders:
            (inside / name).mkdir()
            (inside / name).chmod(0o755)
        for name in files:
            try:
                os.link(os.path.join(root, name), inside / name)
            except OSError:
                shutil.copy2(os.path.join(root, name), inside / name)
    target.chmod(0o755)
