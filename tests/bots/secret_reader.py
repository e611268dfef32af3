"""Tries to read a secret file outside its sandbox (path in target.json), directly and via /proc."""

import json
import sys
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


class SecretReader(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            secret = json.loads(Path(__file__).with_name("target.json").read_text())["secret"]
            paths = [
                secret,
                f"/proc/1/root{secret}",
                f"/proc/self/root{secret}",
                "/etc/shadow",
                "/etc/passwd",
            ]
            for path in paths:
                try:
                    print(f"read {path}: {Path(path).read_text()!r}", file=sys.stderr)
                except OSError as error:
                    print(f"blocked: {path}: {error!r}", file=sys.stderr)
        return self.legal_actions[0]


if __name__ == "__main__":
    run(SecretReader())
