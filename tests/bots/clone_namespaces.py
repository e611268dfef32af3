"""Tries to create namespaces with the raw clone and clone3 system calls (unshare is denied):
one clone per CLONE_NEW* flag, and clone3 with CLONE_NEWUSER. A child that gets created exits
at once. It reports each outcome, checks that Python threads and child processes still work, and plays on."""

import ctypes
import errno
import os
import sys
import threading

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

SYS_CLONE = 56  # x86_64
SYS_CLONE3 = 435
SIGCHLD = 17
__WALL = 0x40000000  # also a child whose exit signal is not SIGCHLD (CLONE_NEWTIME is a signal bit to clone)
FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
    "CLONE_NEWTIME": 0x00000080,
}


class CloneArgs(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_uint64)
        for name in ("flags", "pidfd", "child_tid", "parent_tid", "exit_signal", "stack", "stack_size", "tls")
    ]


def outcome(pid: int) -> str:
    """What a raw clone returned, as seen by the parent (the child exits at once)."""
    if pid == 0:
        os._exit(0)  # the child: back to nothing, before Python notices it exists
    if pid < 0:
        return f"blocked: {errno.errorcode.get(ctypes.get_errno(), '?')}"
    os.waitpid(pid, __WALL)
    return "created"


class CloneNamespaces(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            self.attack()
        return self.legal_actions[0]

    def attack(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        for name, flag in FLAGS.items():
            pid = libc.syscall(
                ctypes.c_long(SYS_CLONE), ctypes.c_ulong(flag | SIGCHLD), None, None, None, None
            )
            print(f"clone {name}: {outcome(pid)}", file=sys.stderr)
        args = CloneArgs(flags=FLAGS["CLONE_NEWUSER"], exit_signal=SIGCHLD)
        pid = libc.syscall(
            ctypes.c_long(SYS_CLONE3), ctypes.byref(args), ctypes.c_size_t(ctypes.sizeof(args))
        )
        print(f"clone3 CLONE_NEWUSER: {outcome(pid)}", file=sys.stderr)
        ran: list[str] = []
        thread = threading.Thread(target=ran.append, args=("thread",))
        thread.start()
        thread.join()
        # A child of its own (clone without namespace flags): spawned, as a fork of a process
        # with gRPC's threads running may crash in gRPC's fork handlers, whatever the sandbox.
        child = os.posix_spawn("/bin/sh", ["sh", "-c", "exit 7"], {})
        _, status = os.waitpid(child, 0)
        print(f"still working: {ran} fork exit {os.waitstatus_to_exitcode(status)}", file=sys.stderr)


if __name__ == "__main__":
    run(CloneNamespaces())
