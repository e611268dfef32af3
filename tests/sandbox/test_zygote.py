"""Bots forked by the zygote (``arena.sandbox.zygote``) into the real bubblewrap sandbox.

A forked bot must hold exactly what a bot started from scratch would: the slot's uid and no
capability, no new privileges, the seccomp filter, a session of its own, only stdin, stdout and
stderr open, a random state of its own, and nothing of the arena's or the zygote's memory. The
zygote must come back when it dies, and end with its arena.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from sandboxed import Bubblewrap, bubblewrap, lines_starting, play, processes_holding, stage

from arena.runner.terms import Status
from arena.sandbox import SandboxLimits
from arena.sandbox.bubblewrap import SLOT_UIDS, ZYGOTE
from arena.sandbox.zygote import ForkedProcess

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"
INSPECTOR = BOTS / "self_inspector.py"
NONE = ["0000000000000000"]


def inspected(log: str) -> dict[str, Any]:
    lines = lines_starting(log, "inspected: ")
    assert len(lines) == 1, log
    report: dict[str, Any] = json.loads(lines[0].removeprefix("inspected: "))
    return report


def test_a_forked_bot_holds_only_what_a_bot_may(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"card-arena-secret-{secrets.token_hex(16)}"
    planted = f"card-arena-secret-{secrets.token_hex(16)}"
    monkeypatch.setenv("CARD_ARENA_TEST_SECRET", secret)
    ZYGOTE.close()  # the next bot comes from a zygote started by an arena that holds the secret
    bot = stage(tmp_path / "code", INSPECTOR, planted=planted)
    record = play([str(bot), str(bot)], bubblewrap())
    reports = [inspected(log) for log in record.logs]
    for report in reports:
        uids = {int(uid) for uid in report["Uid"]}
        assert len(uids) == 1 and uids <= set(SLOT_UIDS), report
        assert {int(gid) for gid in report["Gid"]} == uids, report
        assert report["Groups"] == [], report
        for field in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
            assert report[field] == NONE, (field, report)
        assert report["NoNewPrivs"] == ["1"], report
        assert report["Seccomp"] == ["2"], report
        assert report["session_leader"] is True, report
        # Its own /proc files are its own (readable, as after an exec); the environment it started
        # with is the zygote's, empty (os.environ holds the bot's).
        assert report["own_environ"] == "", report
        # stdin, stdout, stderr, and the descriptor listing /proc/self/fd itself.
        assert report["descriptors"] == [0, 1, 2, 3], report
        # The scan works (it finds what the bot put in its own memory) and finds nothing else.
        assert report["secrets"] == [planted], report
    assert reports[0]["first_draw"] != reports[1]["first_draw"], "two forks drew the same numbers"
    for game in record.games:
        assert set(game.statuses) == {Status.OK}, record.logs


def test_a_forked_bot_holds_nothing_of_another_bots_request(tmp_path: Path) -> None:
    """A bot reads its whole memory for what the zygote kept of earlier fork requests: another
    slot's cgroup path, the replies naming relays' pids, the arena's requests to reap them. The
    zygote read every request into its own heap and forked later bots from it: a bot found the
    slot of a bot forked before it, and the arena's requests to reap earlier relays."""
    ZYGOTE.close()  # a zygote of this test's own: it forks these bots and no others
    sandbox = bubblewrap()
    sandbox.warm = False  # every bot forked when its match starts, after the earlier ones
    earlier = play(["builtin:random", "builtin:random"], sandbox)  # forked, then reaped
    for game in earlier.games:
        assert set(game.statuses) == {Status.OK}, earlier.logs
    held = [sandbox._prepare() for _ in range(2)]  # forked for slots that stay taken meanwhile
    bot = stage(tmp_path / "code", BOTS / "request_seeker.py")
    try:
        record = play([str(bot), str(bot)], sandbox)
    finally:
        for prepared in held:
            sandbox._discard(prepared)
    reports = []
    for log in record.logs:
        lines = lines_starting(log, "sought: ")
        assert len(lines) == 1, log
        reports.append(json.loads(lines[0].removeprefix("sought: ")))
    for report in reports:
        # The scan works: the bot's own request is in its memory (its relay's, forked with it).
        assert report["uid"] in report["slots"], report
        assert report["uid"] not in {prepared.uid for prepared in held}, report
    # Another slot's cgroup path, a reply or a reap request: kept of another request.
    kept = [
        report
        for report in reports
        if report["slots"] != [report["uid"]] or report["replies"] or report["reaps"]
    ]
    assert kept == [], f"a bot's memory held what the zygote kept of other requests: {reports}"
    for game in record.games:
        assert set(game.statuses) == {Status.OK}, record.logs


def test_a_forked_bot_imports_nothing_more_to_play(tmp_path: Path) -> None:
    """Whatever a match makes a bot's SDK load (its game's codec, say) the zygote imported ahead:
    an import after the fork costs every bot again (about 1 ms a codec)."""
    bot = stage(tmp_path / "code", BOTS / "import_teller.py")
    record = play([str(bot), "builtin:random"], bubblewrap())
    assert lines_starting(record.logs[0], "import-teller:") == ["import-teller: "], record.logs[0]


def test_a_dead_zygote_is_started_again(tmp_path: Path) -> None:
    sandbox = bubblewrap()
    play(["builtin:random", "builtin:random"], sandbox)
    process = ZYGOTE._process
    assert process is not None and process.poll() is None
    process.send_signal(signal.SIGKILL)
    process.wait()
    for _ in range(3):  # past the sandboxes prepared before the kill, onto ones forked since
        record = play(["builtin:random", "builtin:random"], sandbox)
        for game in record.games:
            assert set(game.statuses) == {Status.OK}, record.logs
    assert ZYGOTE._process is not None and ZYGOTE._process.pid != process.pid


def test_a_released_bot_is_reaped_by_its_relay() -> None:
    # Killed with its bot, a relay left the bot to the host's init, outside the bot's pid
    # namespace, which here took seconds to reap it: every release of the slot waited for that
    # zombie, and a match starting meanwhile timed out. The relay reports its bot's end only
    # if it outlived it.
    sandbox = bubblewrap()
    for _ in range(4):
        prepared = sandbox._prepare()  # its bot waits for a job that never comes
        process = prepared.started.process
        assert isinstance(process, ForkedProcess)
        deadline = time.monotonic() + 10
        while not processes_holding({prepared.uid}) and time.monotonic() < deadline:
            time.sleep(0.01)  # the relay has entered the sandbox and forked the bot
        sandbox._free(prepared)
        assert os.read(process._exit, 32) == str(-signal.SIGKILL).encode(), "the relay died before its bot"
        for descriptor in (prepared.job, prepared.started.status, process._exit):
            os.close(descriptor)
        assert process.stderr is not None
        process.stderr.close()
    assert sandbox._stuck == []


def test_a_bot_whose_relay_died_first_is_reaped_all_the_same() -> None:
    # A relay's parent ends as soon as it has forked it, so the zygote is the relays' subreaper;
    # a bot whose relay was killed comes to the zygote too, which reaps it (bots are told from
    # relays by their pid namespace): a zombie bot would hold its slot's uid for good.
    sandbox = bubblewrap()
    prepared = sandbox._prepare()  # its bot waits for a job that never comes
    process = prepared.started.process
    deadline = time.monotonic() + 10
    while not processes_holding({prepared.uid}) and time.monotonic() < deadline:
        time.sleep(0.01)  # the relay has entered the sandbox and forked the bot
    os.kill(process.pid, signal.SIGKILL)
    sandbox._discard(prepared)
    assert process.returncode == -signal.SIGKILL
    assert sandbox._stuck == [], "the bot's zombie held its slot's uid"
    assert processes_holding({prepared.uid}) == []


class Looking(Bubblewrap):
    """Counts, from each release of a bot's slot, its looks through /proc for the slot's processes."""

    def __init__(self, limits: SandboxLimits) -> None:
        super().__init__(limits)
        self.looks: dict[int, int] = {}

    def release(self, slot: int) -> None:
        self.looks[self.uid_of(slot)] = 0
        super().release(slot)

    def _processes(self, uid: int) -> set[int]:
        if uid in self.looks:  # not a prepared sandbox discarded unused before the match
            self.looks[uid] += 1
        return super()._processes(uid)


def test_a_released_bot_is_waited_for_not_looked_for_while_it_dies() -> None:
    # A look through /proc reads every process's status: milliseconds of CPU, which a bot dying
    # on the arena's CPU needs. Looking every millisecond until it was gone took 41-75 looks
    # for a match's 4 bots, and tripled the time they took to end.
    sandbox = bubblewrap(Looking)
    assert isinstance(sandbox, Looking)
    record = play([str(BOTS / "hoarder.py"), "builtin:random"], sandbox)
    assert all(status is Status.OK for game in record.games for status in game.statuses), record.logs
    assert list(sandbox.looks.values()) == [1, 1], "each of the 2 bots is looked for once, when it has died"


@pytest.mark.bots_in_other_processes
def test_the_zygote_and_its_bots_end_with_their_arena() -> None:
    script = (
        "import os\n"
        "from arena.sandbox.bubblewrap import BubblewrapSandbox, ZYGOTE\n"
        "prepared = BubblewrapSandbox(warm=False)._prepare()\n"
        "print(ZYGOTE._process.pid, prepared.uid, flush=True)\n"
        "os._exit(0)\n"
    )
    output = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    zygote, uid = (int(word) for word in output.split())
    # The arena's end frees its slot: another arena (a test worker beside this one) may claim the
    # uid at once, and that arena's bots are not this one's; so only a free slot's are looked at.
    deadline = time.monotonic() + 10
    while (
        Path(f"/proc/{zygote}").exists() or processes_holding({uid}, locked=True)
    ) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{zygote}").exists(), "the zygote outlived its arena"
    assert processes_holding({uid}, locked=True) == [], "a prepared bot outlived its arena"
