"""Tries to reach unix sockets outside its sandbox: an abstract one and one in the file system
(names in target.json). It reports each outcome and plays on."""

import json
import socket
import sys
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class AbstractSocket(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            target = json.loads(Path(__file__).with_name("target.json").read_text())
            for address in ("\0" + target["abstract"], target["path"]):
                for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                    try:
                        with socket.socket(socket.AF_UNIX, kind) as connection:
                            connection.settimeout(1)
                            connection.connect(address)
                            connection.sendall(b"escaped")
                        print(f"connected: {address!r}", file=sys.stderr)
                    except OSError as error:
                        print(f"blocked: {address!r}: {error!r}", file=sys.stderr)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(AbstractSocket())
