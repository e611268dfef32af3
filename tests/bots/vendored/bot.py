"""Plays edible with the moves its own package picks: ``picker``, in ``vendor/`` beside this file
(or installed there from a wheel of it), which nothing else on a bot's path provides."""

import sys

import picker

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, MatchInfo, run


class Vendored(Bot[EdibleObservation, EdibleAction]):
    def on_match_start(self, match: MatchInfo) -> None:
        print(f"vendored: picker {picker.__version__} from {picker.__file__}", file=sys.stderr)

    def act(self, observation: EdibleObservation) -> EdibleAction:
        return picker.pick(self.rng, self.legal_actions)


if __name__ == "__main__":
    run(Vendored())
