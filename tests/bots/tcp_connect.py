"""Tries to open a TCP connection to a listener on the arena's 127.0.0.1 (port in target.json)."""

import json
import socket
import sys
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class TcpConnect(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            port = json.loads(Path(__file__).with_name("target.json").read_text())["port"]
            for host in ("127.0.0.1", "localhost", "::1"):
                try:
                    with socket.create_connection((host, port), timeout=1) as connection:
                        connection.sendall(b"escaped")
                    print(f"connected: {host}:{port}", file=sys.stderr)
                except OSError as error:
                    print(f"blocked: {host}:{port}: {error!r}", file=sys.stderr)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(TcpConnect())
