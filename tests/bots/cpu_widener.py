"""Wants more than its match's CPU: it reports the CPUs it may run on, asks for every CPU of the
machine (``sched_setaffinity``) for itself and for a thread it starts after, reports again, and
plays on. A match kept to one CPU must keep its bots there."""

import os
import sys
import threading

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

print(f"cpus at start: {sorted(os.sched_getaffinity(0))}", file=sys.stderr)
try:
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
except OSError as error:
    print(f"widening: {error.strerror}", file=sys.stderr)
print(f"cpus after widening: {sorted(os.sched_getaffinity(0))}", file=sys.stderr)


def in_a_thread() -> None:
    try:
        os.sched_setaffinity(0, range(os.cpu_count() or 1))
    except OSError as error:
        print(f"widening a thread: {error.strerror}", file=sys.stderr)
    print(f"cpus of a thread: {sorted(os.sched_getaffinity(0))}", file=sys.stderr)


thread = threading.Thread(target=in_a_thread)
thread.start()
thread.join()


class Widener(Bot[EdibleObservation, EdibleAction]):
    name = "widener"

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(Widener())
