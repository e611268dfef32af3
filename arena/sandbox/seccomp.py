"""The seccomp filter every sandboxed process runs under: what a bot may not ask the kernel for.

It is a BPF program that bubblewrap loads (``--seccomp``) for the holder, and that the zygote loads
again in each bot it forks.
"""

from __future__ import annotations

import errno
import tempfile

from arena.sandbox.base import SandboxError

#: System calls a bot never needs: debugging others, kernel keyrings, io_uring and AIO, namespaces and
#: mounts, BPF, kernel modules and the like. They fail with EPERM.
DENIED_SYSCALLS = (
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "add_key",
    "request_key",
    "keyctl",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    # The older asynchronous I/O: its events come from one budget for the whole machine
    # (fs.aio-max-nr), which one bot could take, and every io_setup of the host then fails.
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsmount",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    # Machine-wide state, a channel between two bots at one table: sysinfo's loads, free memory
    # and process count; locks and watches on files every sandbox shares read-only (the
    # runtime), which flock and F_GETLK (below) take or see whatever the open mode.
    "sysinfo",
    "flock",
    "inotify_init",
    "inotify_init1",
    "inotify_add_watch",
)
AF_UNIX = 1
#: fcntl's F_GETLK and F_OFD_GETLK: they show another process's lock on a shared file. Taking
#: locks stays allowed: on a file opened read-only only a read lock, which nothing shared sees.
LOCK_QUERIES = (5, 36)
#: clone's flags that create a namespace. A bot's uid may not create any but a user namespace,
#: and inside one it is root with every capability (and may create the rest there): clone with
#: any of them fails with EPERM, like unshare. (CLONE_NEWTIME is a bit of the exit signal to
#: clone; denied all the same.)
CLONE_NEW_FLAGS = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
    "CLONE_NEWTIME": 0x00000080,
}


def seccomp_program() -> bytes:
    """The BPF program: allow by default, deny ``DENIED_SYSCALLS``, clone with a namespace flag
    (EPERM) and clone3 (ENOSYS), and allow sockets of the unix family only (``socket``/
    ``socketpair`` with another family fail with EAFNOSUPPORT)."""
    try:
        import pyseccomp as seccomp  # type: ignore[import-untyped]
    except ImportError as error:  # pragma: no cover - the sandbox extra is missing
        raise SandboxError(
            "the bubblewrap sandbox needs pyseccomp: pip install 'card-arena[sandbox]'"
        ) from error
    program = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED_SYSCALLS:
        try:
            program.add_rule(seccomp.ERRNO(errno.EPERM), name)
        except (RuntimeError, ValueError, OSError):
            continue  # not a system call on this architecture
    for flag in CLONE_NEW_FLAGS.values():
        program.add_rule(seccomp.ERRNO(errno.EPERM), "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory, where seccomp cannot look. ENOSYS makes libc fall back
    # to clone for threads and fork, which the rules above check.
    program.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for command in LOCK_QUERIES:
        program.add_rule(seccomp.ERRNO(errno.EPERM), "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    for name in ("socket", "socketpair"):
        program.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), name, seccomp.Arg(0, seccomp.NE, AF_UNIX))
    with tempfile.TemporaryFile() as exported:
        program.export_bpf(exported)
        exported.seek(0)
        return exported.read()
