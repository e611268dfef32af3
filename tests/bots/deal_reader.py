"""A believe bot whose owner chose its tournament's seed: it deals every game itself and logs whether
it knew every hand before the first card was played.

The seed sits in a file ``seed`` beside it. Match seeds derive from the tournament seed and the
match's place in a round robin (``arena.tournament.schedule``), game seeds from the match seed and the
game (``arena.runner.deals``), and the deal from the game seed alone: the bot tries the first match
indexes until one deals its own hand, and then knows every seat's. It plays randomly: the attack is
the knowledge, which a test checks it had (``predicted N of M``, in its log) on an unrated tournament
that must leave the ladder as it was.
"""

import hashlib
import random
import sys
from pathlib import Path

from arena.games.believe import (
    BelieveAction,
    BelieveConfig,
    BelieveGame,
    BelieveObservation,
    random_legal_action,
)
from sdk import Bot, MatchInfo, run

MATCHES_TRIED = 64


def derive(seed: int, *parts: object) -> int:
    """The arena's one-way seed derivation, as its source shows it."""
    digest = hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).digest()
    return int.from_bytes(digest, "big") >> 128


class DealReader(Bot[BelieveObservation, BelieveAction]):
    def on_match_start(self, match: MatchInfo) -> None:
        self.seed = int(Path(__file__).with_name("seed").read_text())
        assert isinstance(match.config, BelieveConfig)
        self.config, self.seats = match.config, len(match.seat_names)
        self.match_index: int | None = None
        self.games = self.predicted = 0

    def on_game_start(self, game_index: int, seat: int) -> None:
        self.game_index, self.seat, self.looked = game_index, seat, False

    def on_match_end(self) -> None:
        print(f"predicted {self.predicted} of {self.games}", file=sys.stderr, flush=True)

    def deal(self, match_index: int) -> list[list[int]]:
        match_seed = derive(self.seed, "match", "round_robin", match_index)
        game_seed = derive(match_seed, "game", self.game_index)
        state = BelieveGame().new_state(self.config, self.seats, random.Random(game_seed))
        return [list(hand) for hand in state.hands]

    def act(self, observation: BelieveObservation) -> BelieveAction:
        if not self.looked:
            self.looked, self.games = True, self.games + 1
            mine = list(observation.hand)
            tried = [self.match_index] if self.match_index is not None else range(MATCHES_TRIED)
            for index in tried:
                hands = self.deal(index)
                if hands[self.seat] == mine:
                    self.match_index, self.predicted = index, self.predicted + 1
                    print(f"game {self.game_index}: every hand known: {hands}", file=sys.stderr, flush=True)
                    break
        return random_legal_action(observation, self.rng)


if __name__ == "__main__":
    run(DealReader())
