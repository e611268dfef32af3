"""Records every hand it is dealt and predicts the hands it may not see, two ways.

1. Duplicate deals: it remembers its starting hand per deal (``game_index // seats``, the
   arena's published rotation scheme). When a later rotation of the same deal puts another bot
   in a seat it held before, it predicts that seat's hand from memory.
2. Guessable seeds: it searches small seeds (the old default was 0), as match seeds and as
   tournament seeds (its first matches' seeds derive from it), two ways: by its ``bot_seed``
   (once derived from the match seed) and by dealing each candidate itself with the engine
   that ships with the SDK and comparing its own hand. A hit deals every hand.

At its first decision of each game it prints one line to stderr:
``PREDICTION {"seat", "hand", "predicted": {seat: hand}}`` (hands as copies per kind).
Otherwise it plays like the built-in random bot.
"""

import hashlib
import json
import os
import random
import sys

from arena.games.base import GameConfig
from arena.games.believe.bots import RandomBot
from arena.games.believe.engine import BelieveAction, BelieveObservation
from arena.games.registry import get_game
from sdk import MatchInfo, run

SEARCHED_SEEDS = 600
BITS = (63, 128)
"""Derived seeds had 63 bits once; the search tries both widths."""


def derive(seed: int, *parts: object, bits: int) -> int:
    digest = hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).digest()
    return int.from_bytes(digest, "big") >> (256 - bits)


def match_seeds(seed: int) -> list[tuple[int, int]]:
    """(match seed, bits of its derived seeds) if ``seed`` is a match seed, or a tournament's."""
    found = [(seed, bits) for bits in BITS]
    for bits in BITS:
        found += [(derive(seed, "match", "round_robin", index, bits=bits), bits) for index in range(3)]
    return found


class HandRecorder(RandomBot):
    def __init__(self) -> None:
        super().__init__()
        self.memory: dict[int, dict[int, tuple[int, ...]]] = {}
        self.game_index = 0
        self.predicted_this_game = False
        self.seed: tuple[int, int, bool] | None = None
        """The match seed found, its derived seeds' bits, and whether deals are duplicated."""
        self.searched = False

    def on_match_start(self, match: MatchInfo) -> None:
        print(f"UID {os.getuid()}", file=sys.stderr)  # the test checks it ran in a sandbox slot
        self.config: GameConfig = match.config
        self.seats = len(match.seat_names)
        # The old arena derived the bot seed from the match seed: search for it.
        for seed in range(SEARCHED_SEEDS):
            for match_seed, bits in match_seeds(seed):
                if derive(match_seed, "bot", match.seat, bits=63) == match.bot_seed:
                    self.seed = (match_seed, bits, False)
                    return

    def on_game_start(self, game_index: int, seat: int) -> None:
        self.game_index = game_index
        self.predicted_this_game = False

    def deal(self, seed: int, bits: int, duplicate: bool) -> list[tuple[int, ...]]:
        deal = self.game_index // self.seats if duplicate else self.game_index
        game_seed = derive(seed, "game", deal, bits=bits)
        state = get_game("believe").new_state(self.config, self.seats, random.Random(game_seed))
        return [state.observation(seat).hand for seat in range(self.seats)]

    def search_by_dealing(self, hand: tuple[int, ...]) -> None:
        self.searched = True
        for seed in range(SEARCHED_SEEDS):
            for match_seed, bits in match_seeds(seed):
                for duplicate in (False, True):
                    if self.deal(match_seed, bits, duplicate)[self.seat] == hand:
                        self.seed = (match_seed, bits, duplicate)
                        return

    def act(self, observation: BelieveObservation) -> BelieveAction:
        if not self.predicted_this_game and not observation.taken:
            self.predicted_this_game = True
            hand = observation.hand
            if self.seed is None and not self.searched:
                self.search_by_dealing(hand)
            predicted: dict[int, tuple[int, ...]] = {}
            if self.seed is not None:
                hands = self.deal(*self.seed)
                predicted = {seat: hands[seat] for seat in range(self.seats) if seat != self.seat}
            remembered = self.memory.setdefault(self.game_index // self.seats, {})
            for seat, known in remembered.items():
                if seat != self.seat:
                    predicted.setdefault(seat, known)
            remembered[self.seat] = hand
            line = {"seat": self.seat, "hand": hand, "predicted": predicted}
            print("PREDICTION " + json.dumps(line), file=sys.stderr, flush=True)
        return super().act(observation)


if __name__ == "__main__":
    run(HandRecorder())
