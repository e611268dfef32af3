"""Plays legal moves over its SDK stream, and at its first decision starts opening streams that
never say Hello: ``connections`` hand-written HTTP/2 connections (from ``target.json``), each
asked for ``streams`` Play streams, until the arena stops taking them."""

import json
import sys
import threading
from pathlib import Path

from h2raw import END_HEADERS, HEADERS, connect, frame, play_headers

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

TARGET = json.loads((Path(__file__).parent / "target.json").read_text())


def flood() -> None:
    headers = play_headers()
    opened = connected = refused = 0
    for _ in range(TARGET["connections"]):
        try:
            connection = connect()
            connection.settimeout(2)
            connected += 1
            for number in range(TARGET["streams"]):
                connection.sendall(frame(HEADERS, END_HEADERS, 2 * number + 1, headers))
                opened += 1
        except OSError:
            refused += 1
    print(
        f"flood: {opened} streams asked on {connected} connections, {refused} cut",
        file=sys.stderr,
        flush=True,
    )


class StreamFlood(Bot[EdibleObservation, EdibleAction]):
    flooding: threading.Thread | None = None

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if self.flooding is None:
            self.flooding = threading.Thread(target=flood, daemon=True)
            self.flooding.start()
            self.flooding.join()  # all of it while the match runs (the test's clock allows it)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(StreamFlood())
