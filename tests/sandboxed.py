"""Helpers for tests that run bots in the real bubblewrap sandbox over the real transport.

Nothing here is mocked, and nothing skips: a machine where bubblewrap cannot run fails these
tests (they need root, bwrap, setpriv, prlimit and writable cgroup v1 controllers). A folder of
such tests imports ``no_bot_process_outlives_a_match`` (autouse) into its conftest or module.

A bot that needs parameters (a port, a path) reads them from ``target.json`` beside it: the
test copies the bot into a folder of its own and writes that file there, and the sandbox
copies the whole folder to ``/bot``.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import os
import shutil
import threading
from collections.abc import Callable, Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from arena.games.edible import Edible, EdibleConfig
from arena.runner.records import MatchRecord
from arena.runner.terms import Limits, Status
from arena.sandbox import Sandbox, SandboxError, SandboxLimits, cpus
from arena.sandbox.base import BotProgram, Started
from arena.sandbox.bubblewrap import SLOT_LOCKS, SLOT_UIDS, BubblewrapSandbox
from arena.transport.process import play_match

GAMES = 2
SEED = 11
CLOCKS = Limits(decision_ms=1000, bank_ms=1000)
HANG_S = 60
T = TypeVar("T")


class Bubblewrap(BubblewrapSandbox):
    """The real backend, noting the uids it runs bots under and, the moment it has released
    one (the supervisor's word that the bot's whole tree is gone), any process still holding it.

    Only this test's uids are checked: other matches may run sandboxed bots on this machine at
    the same time. While the check runs it holds the uid's slot lock, so that no other match
    can be using that uid.
    """

    def __init__(self, limits: SandboxLimits, proc_subset: bool | None = None) -> None:
        super().__init__(limits, proc_subset=proc_subset)
        self.uids: set[int] = set()
        self.leftovers: list[str] = []

    def start(self, program: BotProgram, socket: Path, token: str, slot: int) -> Started:
        started = super().start(program, socket, token, slot)
        self.uids.add(self.uid_of(slot))
        return started

    def release(self, slot: int) -> None:
        try:
            uid: int | None = self.uid_of(slot)
        except KeyError:
            uid = None
        stuck = len(self._stuck)
        super().release(slot)
        if uid is not None:
            # A slot whose processes would not die stays locked for good: the check below
            # cannot take its lock, so it is a leftover by itself.
            self.leftovers += [f"uid {uid} stuck"] * (len(self._stuck) - stuck)
            self.leftovers += processes_holding({uid}, locked=True)


SANDBOXES: list[Bubblewrap] = []


def bubblewrap(backend: type[Bubblewrap] = Bubblewrap, **limits: Any) -> Bubblewrap:
    """The real backend; a machine that cannot run it fails the test (never skips it)."""
    try:
        sandbox = backend(SandboxLimits(**limits))
    except SandboxError as error:
        pytest.fail(f"these tests need the bubblewrap sandbox, and it cannot run here: {error}")
    SANDBOXES.append(sandbox)
    return sandbox


@contextlib.contextmanager
def kept_to_one_cpu() -> Iterator[int]:
    """The calling thread (and the match threads it starts) on one CPU, as a tournament worker
    keeps its matches (``arena.sandbox.cpus``): the last CPU of this process's."""
    cpu = max(cpus.HOME)
    assert len(cpus.HOME) > 1, "keeping a match to one CPU needs a machine with two at least"
    os.sched_setaffinity(0, {cpu})
    try:
        yield cpu
    finally:
        os.sched_setaffinity(0, cpus.HOME)


def processes_holding(uids: set[int], locked: bool = False) -> list[str]:
    """Every process (zombies included) with one of ``uids`` as real, effective, saved or file
    system uid, as ``pid name state``. With ``locked``, only those of free slots: each uid found
    is looked at again holding its slot lock, one at a time (a uid another match, or another test
    worker, has claimed is left out, and no other claim waits on this look)."""
    found = _processes_by_uid(uids)
    if not locked:
        return [process for uid in sorted(found) for process in found[uid]]
    left = []
    for uid in sorted(found):
        with open(SLOT_LOCKS / f"{uid}.lock", "w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # claimed: its processes are a running match's
            left += _processes_by_uid({uid}).get(uid, [])
    return left


def _processes_by_uid(uids: set[int]) -> dict[int, list[str]]:
    found: dict[int, list[str]] = {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
        except (OSError, ValueError):
            continue
        for uid in uids & {int(uid) for uid in fields["Uid"].split()}:
            found.setdefault(uid, []).append(
                f"{status.parent.name} {fields['Name'].strip()} {fields['State'].strip()}"
            )
    return found


@pytest.fixture(autouse=True)
def no_bot_process_outlives_a_match(request: pytest.FixtureRequest) -> Iterator[None]:
    SANDBOXES.clear()
    yield
    if request.node.get_closest_marker("bots_in_other_processes"):
        # Run by tournament workers or the CLI: no process may hold any free sandbox uid after it.
        assert processes_holding(set(SLOT_UIDS), locked=True) == [], "a bot process outlived its match"
        return
    uids = {uid for sandbox in SANDBOXES for uid in sandbox.uids}
    assert uids, "the test ran no bot in bubblewrap"
    assert [sandbox.leftovers for sandbox in SANDBOXES if sandbox.leftovers] == []
    # Prepared sandboxes discarded unused (a change of limits) are freed the same way.
    assert [sandbox for sandbox in SANDBOXES if sandbox._stuck] == [], "a slot's processes would not die"
    assert processes_holding(uids, locked=True) == [], "a bot process outlived its match"


def stage(folder: Path, bot: Path, **target: Any) -> Path:
    """Copy ``bot`` into ``folder`` (its code folder), with ``target.json`` if asked."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / bot.name
    shutil.copy(bot, path)
    if target:
        (folder / "target.json").write_text(json.dumps(target))
    return path


def run_bounded(main: Callable[[], Coroutine[Any, Any, T]], hang_s: float = HANG_S) -> T:
    """``asyncio.run(main())`` in a thread of its own, failing the test if it hangs (a match
    that never ends would otherwise hang the whole run rather than fail)."""
    outcome: list[T] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            outcome.append(asyncio.run(main()))
        except BaseException as error:
            errors.append(error)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(hang_s)
    if thread.is_alive():
        pytest.fail(f"the match did not end within {hang_s} s")
    if errors:
        raise errors[0]
    return outcome[0]


def lines_starting(log: str, prefix: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith(prefix)]


BOT_SEEDS = (1, 2)
"""Fixed, so that a match played twice plays the same (by default each bot's seed is a fresh draw)."""


def play(
    specs: list[str], sandbox: Sandbox, limits: Limits = CLOCKS, games: int = GAMES, seed: int = SEED
) -> MatchRecord:
    return run_bounded(
        lambda: play_match(
            Edible(),
            EdibleConfig(),
            specs,
            sandbox,
            games=games,
            seed=seed,
            limits=limits,
            bot_seeds=BOT_SEEDS,
        )
    )


def play_hostile(bot: Path, sandbox: Bubblewrap, status: Status, limits: Limits = CLOCKS) -> str:
    """Play ``bot`` against ``builtin:random`` and check the match: every game played, the other
    seat ``ok`` throughout, ``status`` for the bot in every game, and no bot process left right
    after. Returns the bot's log."""
    record = play([str(bot), "builtin:random"], sandbox, limits)
    assert sandbox.leftovers == [], "the supervisor must kill a bot's whole tree at match end"
    log = record.logs[0]
    assert len(record.games) == GAMES, log
    for game in record.games:
        assert game.result is not None
        assert game.statuses[game.seating.index(1)] is Status.OK, log
        assert game.statuses[game.seating.index(0)] is status, (game.faults, log)
    return log
