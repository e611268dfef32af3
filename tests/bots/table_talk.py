"""Two kozel partners of one bot try to talk across their sandboxes.

Both processes start a thread as the first game starts and run it for a few seconds; the first
act of each waits for it, so the match cannot end before. Time is cut into phases on the wall clock,
which both share: in every odd phase the signaller (agent 0) is loud (a child that spins on the
CPU, fills memory, holds many open files, and locks files both partners can open), in even
phases quiet; once at the start it writes a marker into every folder it can write to. The
reader (agent 2) samples every candidate channel all along: every file of /proc outside the
process folders, the sysinfo system call, flock and POSIX locks on shared files, and looks for
the markers. It reports, per channel, how many values it saw or why it could not read it, and
what /proc/1/cmdline (its sandbox's init) shows. Both play random legal moves.
"""

import ctypes
import fcntl
import hashlib
import os
import struct
import sys
import threading
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from arena.games.kozel import KozelAction, KozelObservation
from sdk import Bot, run

DURATION_S = 10.0
READING_S = DURATION_S + 4.0
"""The reader's window: longer, as the signaller first looks for folders to write to. Both are
seconds long because on a busy machine either may start late: a bot whose turn it is not runs at
the least CPU weight, so on a match's CPU shared with other work its thread may wait. With 6 s
and 10 s windows, two CI runs saw the two overlap by only 1.49 s and 1.37 s (some 6 s on a quiet
machine): one started 4.5 s or more after the other. These windows leave the test its 1.5 s
with either starting up to 8.5 s late."""
PHASE_S = 0.25
MARKER = "table-talk-marker"
#: Files every seat's sandbox shares (the runtime and the SDK), to lock.
SHARED = [Path(os.__file__), Path(ctypes.__file__), Path(sys.modules["sdk"].__file__ or "")]
#: The machine-wide counters the reader must find unreadable, whether listed in /proc or not.
NAMED = [
    "/proc/loadavg",
    "/proc/stat",
    "/proc/meminfo",
    "/proc/uptime",
    "/proc/sys/fs/file-nr",
    "/proc/sys/fs/inode-nr",
    "/proc/locks",
    "/proc/vmstat",
    "/proc/pressure/cpu",
    "/proc/pressure/memory",
    "/proc/pressure/io",
    "/proc/interrupts",
    "/proc/softirqs",
    "/proc/schedstat",
    "/proc/diskstats",
    "/proc/zoneinfo",
    "/proc/buddyinfo",
]
PROCESS_ENTRIES = {"self", "thread-self", "mounts", "net"}


def loud(now: float) -> bool:
    return int(now / PHASE_S) % 2 == 1


def folders() -> Iterator[tuple[str, list[str]]]:
    """Every folder, with its files, on a mount that is not read-only (nothing else can take a
    file), outside /proc and /sys."""
    mounts = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point, options = line.split()[4:6]
        if "rw" in options.split(",") and not point.startswith(("/proc", "/sys")):
            mounts.append(point)
    for mount in sorted(set(mounts)):
        yield from ((folder, files) for folder, _, files in os.walk(mount))


def writable_folders() -> list[str]:
    """Every folder that this uid can create a file in, with a marker left in each."""
    found = []
    for folder, _ in folders():
        if not os.access(folder, os.W_OK):
            continue
        probe = os.path.join(folder, f"{MARKER}-{os.getpid()}")
        try:
            with open(probe, "w") as handle:
                handle.write("signal")
        except OSError:
            continue
        found.append(folder)
    return found


class TableTalk(Bot[KozelObservation, KozelAction]):
    worker: threading.Thread | None = None

    def on_game_start(self, game_index: int, seat: int) -> None:
        # The arena starts a game for every seat at once; the match starts for each seat as
        # soon as it connects, which may be seconds apart on a busy machine.
        assert self.match is not None
        target = {0: self.signal, 2: self.read}.get(self.match.seat)
        if game_index == 0 and target is not None:
            self.worker = threading.Thread(target=target)
            self.worker.start()

    def act(self, observation: KozelObservation) -> KozelAction:
        if self.worker is not None:
            self.worker.join()
            self.worker = None
        return self.rng.choice(self.legal_actions)

    # -- the signaller --

    def signal(self) -> None:
        print(f"wrote markers in: {writable_folders()}", file=sys.stderr)
        start = time.time()
        phases = 0
        while time.time() < start + DURATION_S:
            now = time.time()
            end = (int(now / PHASE_S) + 1) * PHASE_S
            if not loud(now):
                time.sleep(end - now)
                continue
            phases += 1
            child = os.fork()
            if child == 0:
                self.shout(end)
            os.waitpid(child, 0)
        print(f"signaller: {phases} loud phases from {start:.3f} to {time.time():.3f}", file=sys.stderr)

    def shout(self, until: float) -> None:
        """In a child: take every resource it can until ``until``, then exit (freeing them)."""
        try:
            handles = [open(path, "rb") for path in SHARED for _ in range(30)]  # noqa: SIM115
            for handle in handles[::30]:
                for attempt in (
                    partial(fcntl.flock, handle, fcntl.LOCK_EX | fcntl.LOCK_NB),
                    partial(fcntl.lockf, handle, fcntl.LOCK_SH | fcntl.LOCK_NB),
                ):
                    try:
                        attempt()
                    except OSError as error:
                        print(f"signaller lock: {error!r}", file=sys.stderr)
            ballast = b"\x01" * (96 * 1024 * 1024)
            count = 0
            while time.time() < until:
                count += len(ballast) > 0
        finally:
            os._exit(0)

    # -- the reader --

    def read(self) -> None:
        start = time.time()
        seen: dict[str, dict[bool, set[str]]] = {}
        samples = {False: 0, True: 0}
        paths = sorted(set(NAMED) | set(self.proc_files()))
        while time.time() < start + READING_S:
            phase = loud(time.time())
            samples[phase] += 1
            readings = {path: self.read_file(path) for path in paths}
            readings["sysinfo"] = self.sysinfo()
            readings.update(self.locks())
            for channel, value in readings.items():
                seen.setdefault(channel, {False: set(), True: set()})[phase].add(value)
            time.sleep(0.02)
        end = time.time()
        for channel, values in sorted(seen.items()):
            every = values[False] | values[True]
            errors = sorted(value for value in every if value.startswith("unreadable"))
            if errors and len(every) == 1:
                verdict = errors[0]
            elif len(every) == 1:
                verdict = "constant"
            else:
                verdict = f"varies ({len(values[False])} values quiet, {len(values[True])} loud)"
            print(f"channel {channel}: {verdict}", file=sys.stderr)
        print(f"reader: {samples[False]} quiet and {samples[True]} loud samples", file=sys.stderr)
        print(f"reader: from {start:.3f} to {end:.3f}", file=sys.stderr)
        markers = [
            os.path.join(folder, name) for folder, files in folders() for name in files if MARKER in name
        ]
        print(f"markers seen: {markers}", file=sys.stderr)
        cmdline = Path("/proc/1/cmdline").read_bytes().replace(b"\0", b" ").decode()
        print(f"init cmdline: {cmdline}", file=sys.stderr)
        print(f"init cmdline holds my token: {os.environ['ARENA_TOKEN'] in cmdline}", file=sys.stderr)

    @staticmethod
    def proc_files() -> list[str]:
        """Every file under /proc outside the process folders (which are this sandbox's own)."""
        found = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() or entry in PROCESS_ENTRIES:
                continue
            for folder, _, files in os.walk(f"/proc/{entry}"):
                found += [os.path.join(folder, name) for name in files]
            if os.path.isfile(f"/proc/{entry}"):
                found.append(f"/proc/{entry}")
        return found

    @staticmethod
    def read_file(path: str) -> str:
        try:
            with open(path, "rb") as handle:
                return hashlib.sha256(handle.read(65536)).hexdigest()
        except OSError as error:
            return f"unreadable ({type(error).__name__})"

    @staticmethod
    def sysinfo() -> str:
        libc = ctypes.CDLL(None, use_errno=True)
        buffer = ctypes.create_string_buffer(256)
        if libc.sysinfo(buffer) != 0:
            return f"unreadable (errno {ctypes.get_errno()})"
        # uptime, three loads, total, free, shared and buffer memory, swap, processes
        return repr(struct.unpack_from("l3L6LH", buffer.raw)[1:])

    @staticmethod
    def locks() -> dict[str, str]:
        """Whether another process holds a lock on each shared file, by flock and by F_GETLK."""
        found = {}
        for path in SHARED:
            with open(path, "rb") as handle:
                try:
                    fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
                    fcntl.flock(handle, fcntl.LOCK_UN)
                    found[f"flock {path}"] = "free"
                except BlockingIOError:
                    found[f"flock {path}"] = "locked"
                except OSError as error:
                    found[f"flock {path}"] = f"unreadable ({type(error).__name__})"
                query = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
                try:
                    answer = fcntl.fcntl(handle, fcntl.F_GETLK, query)
                    found[f"F_GETLK {path}"] = str(struct.unpack("hhqqi", answer)[0])
                except OSError as error:
                    found[f"F_GETLK {path}"] = f"unreadable ({type(error).__name__})"
        return found


if __name__ == "__main__":
    run(TableTalk())
