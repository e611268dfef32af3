"""Tries to kill and to ptrace other processes: its sandbox's init (pid 1), every process it can
see, and the arena and a victim by their real process ids (from target.json). It reports each
outcome and plays on."""

import ctypes
import errno
import json
import os
import signal
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

PTRACE_ATTACH = 16
PTRACE_SEIZE = 0x4206


def report(what: str, attempt: Callable[[], object]) -> None:
    try:
        result = attempt()
    except OSError as error:
        print(f"blocked: {what}: {errno.errorcode.get(error.errno or 0, '?')}", file=sys.stderr)
        return
    print(f"done: {what}: {result!r}", file=sys.stderr)


class Signaller(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            self.attack()
        return self.legal_actions[0]

    def attack(self) -> None:
        target = json.loads(Path(__file__).with_name("target.json").read_text())
        me = os.getpid()
        visible = sorted(int(name) for name in os.listdir("/proc") if name.isdigit())
        print(f"visible processes: {visible}", file=sys.stderr)
        victims = sorted({1, *visible, target["arena_pid"], target["victim_pid"]} - {me})
        libc = ctypes.CDLL(None, use_errno=True)

        def ptrace(request: int, pid: int) -> int:
            if libc.ptrace(request, pid, None, None) == -1:
                number = ctypes.get_errno()
                raise OSError(number, os.strerror(number))
            return 0

        for pid in victims:
            report(f"kill {pid} SIGKILL", partial(os.kill, pid, signal.SIGKILL))
            report(f"kill {pid} SIGSTOP", partial(os.kill, pid, signal.SIGSTOP))
            report(f"ptrace attach {pid}", partial(ptrace, PTRACE_ATTACH, pid))
            report(f"ptrace seize {pid}", partial(ptrace, PTRACE_SEIZE, pid))
            report(f"read /proc/{pid}/mem", partial(Path(f"/proc/{pid}/mem").read_bytes))
        report("kill -1 SIGKILL", lambda: os.kill(-1, signal.SIGKILL))


if __name__ == "__main__":
    run(Signaller())
