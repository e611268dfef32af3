"""Floods its stderr while it plays legal moves: at the start of the match it writes ``bytes``
(from ``target.json``) of one ``kind``: ``no_newline`` (one endless line), ``traceback`` (a
traceback that never reaches its exception line) or ``newlines`` (only empty lines)."""

import json
import os
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, MatchInfo, run

TARGET = json.loads((Path(__file__).parent / "target.json").read_text())
CHUNK = 1 << 16


def flood() -> None:
    kind, size = TARGET["kind"], TARGET["bytes"]
    if kind == "traceback":
        os.write(2, b"Traceback (most recent call last):\n")
    line = {"no_newline": b"x", "traceback": b'  File "bot.py", line 7, in deep\n', "newlines": b"\n"}[kind]
    chunk = line * (CHUNK // len(line))
    written = 0
    while written < size:
        written += os.write(2, chunk)


class StderrFlood(Bot[EdibleObservation, EdibleAction]):
    def begin_match(self, match: MatchInfo) -> None:
        flood()

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.legal_actions[0]


if __name__ == "__main__":
    run(StderrFlood())
