"""Tries to change code: its own file, its code folder, the arena's and the SDK's sources and
the Python runtime (a sitecustomize that every later bot would run). It reports each outcome and
plays on."""

import os
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import arena
import sdk
from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run


def attempt(what: str, action: Callable[[], object]) -> None:
    try:
        action()
        print(f"done: {what}", file=sys.stderr)
    except OSError as error:
        print(f"blocked: {what}: {error!r}", file=sys.stderr)


def append(path: Path) -> None:
    with path.open("a") as out:
        out.write("\nraise SystemExit('tampered')\n")


class CodeWriter(Bot[EdibleObservation, EdibleAction]):
    tried = False

    def act(self, observation: EdibleObservation) -> EdibleAction:
        if not self.tried:
            self.tried = True
            me = Path(__file__)
            folder = me.parent
            attempt("append to my code", lambda: append(me))
            attempt("truncate my code", lambda: me.write_text("tampered"))
            attempt("chmod my code", lambda: os.chmod(me, 0o777))
            attempt("rename my code", lambda: me.rename(folder / "moved.py"))
            attempt("delete my code", lambda: me.unlink())
            attempt("add a file beside my code", lambda: (folder / "extra.py").write_text("tampered"))
            attempt("change the arena", lambda: append(Path(arena.__file__)))
            attempt("change the sdk", lambda: append(Path(sdk.__file__)))
            site = Path(sysconfig.get_paths()["purelib"]) / "sitecustomize.py"
            attempt(f"plant {site}", lambda: site.write_text("print('tampered')\n"))
        return self.legal_actions[0]


if __name__ == "__main__":
    run(CodeWriter())
