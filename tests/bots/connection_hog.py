"""Plays legal moves over its SDK stream and, once its own stream is up, holds as many
connections to the arena's socket as it can (``connections`` from ``target.json``), opening a
new one whenever the arena closes one: if every seat dialled the same socket, a seat that
connects later would find no room left and forfeit the match without playing."""

import json
import select
import socket
import sys
import threading
import time
from pathlib import Path

from h2raw import connect

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, MatchInfo, run

TARGET = json.loads((Path(__file__).parent / "target.json").read_text())


def hog() -> None:
    held: list[socket.socket] = []
    opened = 0
    report = time.monotonic()
    while True:
        if time.monotonic() >= report:
            print(f"hog: {opened} connections opened, {len(held)} held", file=sys.stderr, flush=True)
            report += 0.5
        while len(held) < TARGET["connections"]:
            try:
                held.append(connect())
                opened += 1
            except OSError:
                break
        # Drop the connections the arena has closed (readable at end of file), and go again.
        readable, _, _ = select.select(held, [], [], 0.01)
        for connection in readable:
            try:
                closed = connection.recv(65536) == b""
            except OSError:
                closed = True
            if closed:
                held.remove(connection)
                connection.close()


class ConnectionHog(Bot[EdibleObservation, EdibleAction]):
    def on_match_start(self, match: MatchInfo) -> None:
        threading.Thread(target=hog, daemon=True).start()

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(ConnectionHog())
