"""A fork bomb, set off before the bot connects: every process forks until the process limit
stops it. The bot counts the processes of its uid, kills the bomb, leaves a few sleepers that
dodge polite signals in sessions of their own (the arena must kill them at match end), and plays.
"""

import os
import signal
import sys
import time
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

SLEEPERS = 3


def processes_of_my_uid(zombies: bool = False) -> int:
    """Processes of this uid in the sandbox, zombies too if asked: they hold their slot under the
    process limit until the sandbox's init reaps them."""
    count = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except (OSError, ValueError):
            continue
        zombie = fields["State"].strip().startswith("Z")
        if int(fields["Uid"].split()[0]) == os.getuid() and (zombies or not zombie):
            count += 1
    return count


def multiply() -> None:
    """A bomb process: forks until the limit stops it (so do its children), then waits."""
    while True:
        try:
            os.fork()
        except OSError:
            break
    while True:
        signal.pause()


def sleeper() -> None:
    os.setsid()
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(number, signal.SIG_IGN)
    while True:
        signal.pause()


class ForkBomb(Bot[EdibleObservation, EdibleAction]):
    def __init__(self) -> None:
        super().__init__()
        # Before the SDK starts its threads, so that fork is safe.
        children, error = 0, None
        while children < 100_000:
            try:
                pid = os.fork()
            except OSError as failure:
                error = failure
                break
            if pid == 0:
                multiply()
            children += 1
        time.sleep(0.3)
        print(f"fork bomb: {children} children, then {error!r}", file=sys.stderr)
        print(f"processes of my uid: {processes_of_my_uid()}", file=sys.stderr)
        # Kill every process of this uid but this one, until none is left: a bomb process still
        # forking may escape one sweep, and the orphans hold their slot under the process limit
        # until the sandbox's init reaps them (the SDK's threads need those slots).
        deadline = time.monotonic() + 5
        while processes_of_my_uid(zombies=True) > 1 and time.monotonic() < deadline:
            os.kill(-1, signal.SIGKILL)
            try:
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            except ChildProcessError:
                pass
            time.sleep(0.01)
        for _ in range(SLEEPERS):
            if os.fork() == 0:
                sleeper()
        print(f"left {SLEEPERS} sleepers", file=sys.stderr)

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(ForkBomb())
