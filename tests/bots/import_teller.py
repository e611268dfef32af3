"""Plays randomly and says on stderr, at the match's end, which modules its match imported."""

import sys

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run

BEFORE = set(sys.modules)


class ImportTeller(Bot[EdibleObservation, EdibleAction]):
    def act(self, observation: EdibleObservation) -> EdibleAction:
        return self.rng.choice(self.legal_actions)

    def on_match_end(self) -> None:
        print(f"import-teller: {' '.join(sorted(set(sys.modules) - BEFORE))}", file=sys.stderr)


if __name__ == "__main__":
    run(ImportTeller())
