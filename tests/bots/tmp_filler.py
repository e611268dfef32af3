"""Fills /tmp with files each under the file size limit until the tmpfs is full (ENOSPC), and
looks for any other writable place; it reports and plays on, leaving /tmp full."""

import errno
import sys

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

CHUNK = b"\x00" * (256 * 1024)
FILE_SIZE = 1024 * 1024
GIVE_UP = 1024 * 1024 * 1024
ELSEWHERE = ("/", "/dev/shm", "/dev", "/arena", "/bot", "/proc", "/usr", "/var/tmp", "/run")


class TmpFiller(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            self.fill()
            for folder in ELSEWHERE:
                try:
                    with open(f"{folder}/filler", "wb") as out:
                        out.write(CHUNK)
                    print(f"wrote: {folder}/filler", file=sys.stderr)
                except OSError as error:
                    print(f"blocked: {folder}: {error!r}", file=sys.stderr)
        return self.legal_actions[0]

    def fill(self) -> None:
        written = files = 0
        try:
            while written < GIVE_UP:
                with open(f"/tmp/filler-{files}", "wb") as out:
                    files += 1
                    for _ in range(FILE_SIZE // len(CHUNK)):
                        written += out.write(CHUNK)
                        out.flush()
            print(f"not stopped: wrote {written} bytes", file=sys.stderr)
        except OSError as error:
            name = errno.errorcode.get(error.errno or 0, "?")
            print(f"stopped: {name} after {written} bytes in {files} files: {error!r}", file=sys.stderr)


if __name__ == "__main__":
    run(TmpFiller())
