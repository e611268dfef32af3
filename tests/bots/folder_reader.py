"""Prints everything under /bot (its code folder as the sandbox shows it) as ``FILE <path>
<first bytes>``; beside it the test puts links to files only root may read."""

import os
import sys

from arena.games.edible.bots import RandomBot
from sdk import run

for folder, _, names in os.walk("/bot"):
    for name in names:
        path = os.path.join(folder, name)
        try:
            with open(path, "rb") as handle:
                print(f"FILE {path} {handle.read(200)!r}", file=sys.stderr)
        except OSError as error:
            print(f"BLOCKED {path} {error}", file=sys.stderr)

if __name__ == "__main__":
    run(RandomBot())
