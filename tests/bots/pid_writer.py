"""Plays randomly and records its process id and the games it saw in a folder beside this file."""

import os
from pathlib import Path

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, MatchInfo, run


class PidWriter(Bot[EdibleObservation, EdibleAction]):
    def on_match_start(self, match: MatchInfo) -> None:
        self.record = Path(__file__).with_name("pids") / str(os.getpid())
        self.record.parent.mkdir(exist_ok=True)
        self.record.write_text("")

    def on_game_start(self, game_index: int, seat: int) -> None:
        with self.record.open("a") as out:
            out.write(f"{game_index}\n")

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(PidWriter())
