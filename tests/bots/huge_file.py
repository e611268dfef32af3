"""Writes one file without end (in /tmp, then in its working folder): the file size limit must
stop it with EFBIG; it reports how far it got and plays on."""

import errno
import os
import sys

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

CHUNK = b"\x00" * (256 * 1024)
GIVE_UP = 1024 * 1024 * 1024


class HugeFile(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            written = 0
            try:
                with open("/tmp/huge", "wb") as out:
                    while written < GIVE_UP:
                        written += out.write(CHUNK)
                        out.flush()
                print(f"not stopped: wrote {written} bytes", file=sys.stderr)
            except OSError as error:
                name = errno.errorcode.get(error.errno or 0, "?")
                print(f"stopped: {name} after {written} bytes: {error!r}", file=sys.stderr)
            finally:
                if os.path.exists("/tmp/huge"):
                    os.remove("/tmp/huge")
        return self.legal_actions[0]


if __name__ == "__main__":
    run(HugeFile())
