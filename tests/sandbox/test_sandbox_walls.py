"""Walls of the bubblewrap sandbox that a hostile bot reads our source to get through.

Each test plays a short match over the real transport, the hostile bot in the real sandbox
playing legal moves while it attacks, and checks what must hold (issue 13). Helpers are in
``tests/sandboxed.py``; the bots are in ``bots/`` here.
"""

from __future__ import annotations

import contextlib
import functools
import re
import statistics
from pathlib import Path

import pytest
from sandboxed import (
    GAMES,
    SEED,
    Bubblewrap,
    bubblewrap,
    kept_to_one_cpu,
    lines_starting,
    no_bot_process_outlives_a_match,
    play,
    play_hostile,
    run_bounded,
    stage,
)

from arena.games.kozel import Kozel, KozelConfig
from arena.runner.terms import Limits, Status
from arena.sandbox import NoSandbox, SandboxError, cpus
from arena.transport.process import play_match

# Run alone, after the parallel tests (deploy/test.sh): CPU shares between bots are measured.
pytestmark = pytest.mark.serial

__all__ = ["no_bot_process_outlives_a_match"]  # the autouse fixture, for every test here

BOTS = Path(__file__).resolve().parents[1] / "bots"
STARTER = Path(__file__).resolve().parents[2] / "sdk" / "examples" / "edible_starter.py"
NAMESPACE_FLAGS = ("NS", "CGROUP", "UTS", "IPC", "USER", "PID", "NET", "TIME")
CPU_ROUNDS = 5
NAMED_COUNTERS = (
    "/proc/loadavg",
    "/proc/stat",
    "/proc/meminfo",
    "/proc/sys/fs/file-nr",
    "/proc/locks",
    "/proc/vmstat",
    "/proc/pressure/cpu",
    "/proc/interrupts",
    "/proc/schedstat",
    "/proc/diskstats",
    "sysinfo",
)


def test_namespaces_cannot_be_created_with_clone_or_clone3(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", BOTS / "clone_namespaces.py")
    log = play_hostile(bot, bubblewrap(), Status.OK)
    for flag in NAMESPACE_FLAGS:
        assert f"clone CLONE_NEW{flag}: blocked: EPERM" in log, log
    # ENOSYS, not EPERM: libc then falls back to clone, so threads and fork still work.
    assert "clone3 CLONE_NEWUSER: blocked: ENOSYS" in log, log
    assert "still working: ['thread'] fork exit 7" in log, log


def test_a_bot_cannot_take_the_host_s_asynchronous_io_budget(tmp_path: Path) -> None:
    """``fs.aio-max-nr`` is one budget for the whole machine: a bot that took it (65,536 events)
    made every io_setup of the host fail while it played (issue 35)."""
    bot = stage(tmp_path / "code", BOTS / "aio_hog.py")
    log = play_hostile(bot, bubblewrap(), Status.OK)
    assert "io_setup: blocked: EPERM" in log, log
    for name in ("io_submit", "io_getevents", "io_pgetevents", "io_cancel", "io_destroy"):
        assert f"{name}: blocked: EPERM" in log, log


def test_team_partners_cannot_talk_through_the_machine(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", BOTS / "table_talk.py")
    sandbox = bubblewrap()
    specs = [str(bot), "builtin:random", str(bot), "builtin:random"]
    # A partner's first decision waits for its thread: the signaller's folder walk, then its 10 s.
    limits = Limits(decision_ms=30_000, bank_ms=0)
    record = run_bounded(
        lambda: play_match(Kozel(), KozelConfig(), specs, sandbox, games=1, seed=SEED, limits=limits)
    )
    signaller, reader = record.logs[0], record.logs[2]
    assert all(status is Status.OK for status in record.games[0].statuses), record.games[0].faults
    # The attack ran: the signaller was loud often, and the two overlapped in time.
    loud = re.search(r"signaller: (\d+) loud phases from ([\d.]+) to ([\d.]+)", signaller)
    heard = re.search(r"reader: from ([\d.]+) to ([\d.]+)", reader)
    assert loud is not None and heard is not None, (signaller, reader)
    assert int(loud.group(1)) >= 4, signaller
    overlap = min(float(loud.group(3)), float(heard.group(2))) - max(
        float(loud.group(2)), float(heard.group(1))
    )
    assert overlap >= 1.5, (signaller, reader)
    samples = re.search(r"reader: (\d+) quiet and (\d+) loud samples", reader)
    assert samples is not None and min(int(samples.group(1)), int(samples.group(2))) >= 5, reader
    # Nothing the reader can read varies, and the machine-wide counters are out of its reach.
    channels = dict(
        line.removeprefix("channel ").rsplit(": ", 1) for line in lines_starting(reader, "channel ")
    )
    assert {name: verdict for name, verdict in channels.items() if verdict.startswith("varies")} == {}, reader
    for name in NAMED_COUNTERS:
        assert channels[name].startswith("unreadable"), (name, channels[name])
    # Nothing either wrote is visible to the other (it did write: its own /tmp at least).
    assert "'/tmp'" in lines_starting(signaller, "wrote markers in: ")[0], signaller
    assert lines_starting(reader, "markers seen: ") == ["markers seen: []"], reader
    # Its sandbox's init shows neither the token nor the arena's paths.
    cmdline = lines_starting(reader, "init cmdline: ")[0]
    assert lines_starting(reader, "init cmdline holds my token: ") == ["init cmdline holds my token: False"]
    for secret in ("ARENA_TOKEN", "card-arena-code", "arena.sock", str(tmp_path)):
        assert secret not in cmdline, cmdline


@pytest.mark.parametrize("where", ["anywhere", "on one CPU"])
def test_a_bot_with_busy_children_leaves_the_other_bots_their_time(tmp_path: Path, where: str) -> None:
    # Three honest bots that think (kozel's search bot), against one that forks 16 busy
    # children, then against the same bot without them: the same seed, so the same decisions.
    # The machine is small and shared: each round plays both, in alternating order, and the
    # median of the rounds' ratios counts. On one CPU, as a tournament worker keeps a match,
    # the hog would take half of it from the bot whose turn it is but for the turns' weights.
    hog = stage(tmp_path / "hog", BOTS / "cpu_hog.py", children=16)
    calm = stage(tmp_path / "calm", BOTS / "cpu_hog.py", children=0)
    sandbox = bubblewrap(processes=64)
    with kept_to_one_cpu() if where == "on one CPU" else contextlib.nullcontext():
        ratios = [hog_over_calm(hog, calm, sandbox, round_) for round_ in range(CPU_ROUNDS)]
    assert statistics.median(ratios) <= 1.5, ratios


def hog_over_calm(hog: Path, calm: Path, sandbox: Bubblewrap, round_: int) -> float:
    """The honest bots' mean decision time beside ``hog`` over that beside ``calm``, in one round."""
    limits = Limits(decision_ms=10_000, bank_ms=0)
    means = {}
    for bot in (calm, hog) if round_ % 2 else (hog, calm):
        specs = [str(bot), "builtin:search", "builtin:search", "builtin:search"]
        record = run_bounded(
            functools.partial(
                play_match,
                Kozel(),
                KozelConfig(),
                specs,
                sandbox,
                games=1,
                seed=SEED + round_,
                limits=limits,
                rotate=False,
            )
        )
        game = record.games[0]
        assert all(status is Status.OK for status in game.statuses), (game.faults, record.logs[0])
        assert f"spinning children: {16 if bot == hog else 0}" in record.logs[0], record.logs[0]
        times = [ms for (seat, _), ms in zip(game.actions, game.times_ms, strict=True) if seat != 0]
        means[bot] = statistics.mean(times)
    return means[hog] / means[calm]


def test_a_bot_of_a_match_kept_to_one_cpu_cannot_leave_it(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", BOTS / "cpu_widener.py")
    with kept_to_one_cpu() as cpu:
        log = play_hostile(bot, bubblewrap(), Status.OK)
    for line in ("cpus at start", "cpus after widening", "cpus of a thread"):
        assert lines_starting(log, line) == [f"{line}: [{cpu}]"], log
    # Away from a match kept to one CPU, a bot runs wherever its arena may.
    log = play_hostile(bot, bubblewrap(), Status.OK)
    assert lines_starting(log, "cpus at start") == [f"cpus at start: {sorted(cpus.HOME)}"], log


def test_a_bot_cannot_pass_its_crash_off_as_the_sandboxs_failure(tmp_path: Path) -> None:
    bot = stage(tmp_path / "code", BOTS / "fake_sandbox_failure.py")
    for sandbox in (bubblewrap(), NoSandbox()):
        record = play([str(bot), "builtin:random"], sandbox)
        assert [game.statuses[game.seating.index(0)] for game in record.games] == [Status.CRASH] * GAMES
        assert "bwrap: Can't mount proc" in record.logs[0], record.logs[0]
        assert "exited with code 1 before connecting" in record.logs[0], record.logs[0]


class BrokenBubblewrap(Bubblewrap):
    """bubblewrap asked for a namespace it does not know: it fails before the launcher runs."""

    # BubblewrapSandbox.unshare is inferred as a tuple of exactly five names.
    unshare = (*Bubblewrap.unshare, "nothing")


@pytest.mark.bots_in_other_processes  # no bot ever runs: every slot uid must be free after it
def test_a_sandbox_that_fails_before_the_bot_runs_is_an_infrastructure_fault(tmp_path: Path) -> None:
    with pytest.raises(SandboxError, match=r"bubblewrap could not set up the sandbox: .*--unshare-nothing"):
        play([str(stage(tmp_path / "code", STARTER)), "builtin:random"], bubblewrap(BrokenBubblewrap))
