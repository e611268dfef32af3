"""Times the wait for each of its Kozel requests, to learn when another seat was asked about a molodka.

Only the asked seat may know that a window asked anyone, so if the wait between this bot's answer
and its next request is longer when another seat was asked (and declined), the waits tell who
holds four cards of a suit. The bot plays at random and, at each game's end, prints one line to
stderr: ``WAITS game_index seat w1,w2,...``, the waits in units of 10 microseconds before its 2nd,
3rd, ... request of the game (the test pairs them with the replay, which says where the questions
were).
"""

import sys
import time

from arena.games.base import GameResult
from arena.games.kozel import KozelAction, KozelObservation
from sdk import Bot, run


class MolodkaTimer(Bot[KozelObservation, KozelAction]):
    def __init__(self) -> None:
        super().__init__()
        self.answered: float | None = None
        self.waits: list[int] = []
        self.game_seat = 0

    def on_game_start(self, game_index: int, seat: int) -> None:
        self.answered, self.waits = None, []
        self.game_seat = seat

    def act(self, observation: KozelObservation) -> KozelAction:
        asked = time.perf_counter()
        if self.answered is not None:
            self.waits.append(round((asked - self.answered) * 1e5))
        action = self.rng.choice(self.legal_actions)
        self.answered = time.perf_counter()
        return action

    def on_game_end(self, game_index: int, result: GameResult) -> None:
        print(
            f"WAITS {game_index} {self.game_seat} {','.join(map(str, self.waits))}",
            file=sys.stderr,
            flush=True,
        )


if __name__ == "__main__":
    run(MolodkaTimer())
