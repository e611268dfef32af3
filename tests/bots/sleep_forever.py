"""Never answers its first decision: it sleeps forever, deaf to polite signals (status ``timeout``)."""

import signal
import time

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class SleepForever(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(number, signal.SIG_IGN)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    run(SleepForever())
