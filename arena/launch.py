"""The launcher: the first code a bot's interpreter runs, trusted, before the bot's own.

The arena starts every bot process as ``python -I -u -B launch.py JOB STATUS`` with two inherited
pipes: from JOB it reads what to run and how to reach the arena, writes ``STARTED`` to STATUS, and
only then runs the bot's code (``-m MODULE ARGS...``, ``PATH ARGS...``, or ``--exec FOLDER PROGRAM
ARGS...`` for a bot in another language), a Python bot's ``vendor/`` on its path (``vendored``). A
process that ends without that record is the sandbox's failure, one that ends after it the bot's
crash. In the bubblewrap sandbox the zygote forks the bot, which goes on at ``run_job``. The launcher
keeps to the standard library and to what Python imports anyway.

Why: docs/sandbox.md.
"""

from __future__ import annotations

import os
import sys

STARTED = b"started\n"
"""What the launcher writes to its status pipe just before the bot's code runs."""
SEPARATOR = "\0"
"""Between the fields of a job: the arena's address, the token, then the command."""
EXEC = "--exec"
"""A command ``--exec FOLDER PROGRAM ARGS...``: a bot of any language (its manifest's command),
run from its folder in place of the launcher."""
VENDOR = "vendor"
"""The folder of a Python bot's own packages, beside its entry point (its wheels are installed
there: ``arena.submissions.install_wheels``)."""


def vendored(folder: str) -> list[str]:
    """The import path a Python bot whose entry point is in ``folder`` adds: that folder, then
    its ``vendor/`` if it has one (ahead of the runtime's libraries, which it may replace)."""
    vendor = os.path.join(folder, VENDOR)
    return [folder, vendor] if os.path.isdir(vendor) else [folder]


def encode_job(address: str, token: str, command: list[str]) -> bytes:
    return SEPARATOR.join([address, token, *command]).encode()


def _read_all(descriptor: int) -> bytes:
    chunks = []
    while chunk := os.read(descriptor, 65536):
        chunks.append(chunk)
    os.close(descriptor)
    return b"".join(chunks)


def run_job(job: int, status: int) -> None:
    """Read the job from ``job``, write the record to ``status``, and run the bot's code."""
    import runpy  # the launcher's own work, all before the record

    address, token, *command = _read_all(job).decode().split(SEPARATOR)
    os.environ["ARENA_ADDRESS"] = address
    os.environ["ARENA_TOKEN"] = token

    os.write(status, STARTED)
    os.close(status)
    if command[0] == EXEC:
        folder, *argv = command[1:]
        # A Python program among them (python3 bot.py) finds its packages as a plain file does.
        inherited = [os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []
        os.environ["PYTHONPATH"] = os.pathsep.join([*vendored(folder), *inherited])
        try:
            os.chdir(folder)
            os.execv(argv[0], argv)
        except OSError as error:  # the bot's own program: its failure is the bot's crash
            sys.stderr.write(f"arena: cannot run the bot's command {argv[0]}: {error.strerror}\n")
            sys.exit(127)
    if command[0] == "-m":
        sys.argv = command[1:]
        runpy.run_module(command[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = command
        sys.path[0:0] = vendored(os.path.dirname(command[0]))
        runpy.run_path(command[0], run_name="__main__")


def main() -> None:
    job, status = int(sys.argv[1]), int(sys.argv[2])
    # -I leaves PYTHONPATH out (and this file's folder, which is no place to import from).
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    run_job(job, status)


if __name__ == "__main__":
    main()
