"""Tries to send UDP datagrams to a socket on the arena's 127.0.0.1 (port in target.json)."""

import json
import socket
import sys
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class UdpSend(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            port = json.loads(Path(__file__).with_name("target.json").read_text())["port"]
            try:
                with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
                    for _ in range(3):
                        sender.sendto(b"escaped", ("127.0.0.1", port))
                print(f"sent: 127.0.0.1:{port}", file=sys.stderr)
            except OSError as error:
                print(f"blocked: 127.0.0.1:{port}: {error!r}", file=sys.stderr)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(UdpSend())
