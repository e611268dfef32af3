"""Tries to take the host's whole budget of asynchronous I/O events (``fs.aio-max-nr``, shared by
every process of the machine) with ``io_setup``, then the other AIO calls on what it got. It reports
each outcome and plays on."""

import ctypes
import errno
import sys

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

# x86_64 system call numbers
IO_SETUP, IO_DESTROY, IO_GETEVENTS, IO_SUBMIT, IO_CANCEL, IO_PGETEVENTS = 206, 207, 208, 209, 210, 333


class AioHog(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            self.attack()
        return self.legal_actions[0]

    def attack(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.syscall.restype = ctypes.c_long
        taken, contexts = 0, []
        size = 65536
        while size >= 1:  # the largest contexts first, then whatever is left
            context = ctypes.c_ulong(0)
            if libc.syscall(ctypes.c_long(IO_SETUP), ctypes.c_uint(size), ctypes.byref(context)) == 0:
                taken += size
                contexts.append(context.value)
                continue
            failure = errno.errorcode.get(ctypes.get_errno(), "?")
            if failure != "EAGAIN":
                break
            size //= 2
        print(f"io_setup: took {taken} events" if taken else f"io_setup: blocked: {failure}", file=sys.stderr)
        context_id = contexts[0] if contexts else 0
        for name, number in (
            ("io_submit", IO_SUBMIT),
            ("io_getevents", IO_GETEVENTS),
            ("io_pgetevents", IO_PGETEVENTS),
            ("io_cancel", IO_CANCEL),
            ("io_destroy", IO_DESTROY),
        ):
            result = libc.syscall(ctypes.c_long(number), ctypes.c_ulong(context_id), 0, 0, 0, 0, 0)
            failure = errno.errorcode.get(ctypes.get_errno(), "?") if result < 0 else "ran"
            print(f"{name}: {'blocked: ' + failure if failure == 'EPERM' else failure}", file=sys.stderr)


if __name__ == "__main__":
    run(AioHog())
