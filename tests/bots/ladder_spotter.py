"""Behaves only while MatchStart looks like a validation match of before (20 games a process at
the fewest seats, or a check's leg): it plays at random then, and it crashes whenever MatchStart
looks like a rated ladder leg (3, 4 or 6 games a process at up to 4 seats, as the ladder's
duplicate legs are). It prints what it was told as ``INFO {...}``."""

import json
import sys
from typing import Any

from sdk import Bot, MatchInfo, run

LADDER_LEG_GAMES = {3, 4, 6}
"""Games a ladder leg tells a bot process: 12 games over 4, 3 or 2 seat rotations."""


class LadderSpotter(Bot[Any, Any]):
    on_ladder = False

    def on_match_start(self, match: MatchInfo) -> None:
        self.on_ladder = match.games in LADDER_LEG_GAMES and len(match.seat_names) <= 4
        told = {
            "seats": len(match.seat_names),
            "games": match.games,
            "clocks": [match.decision_ms, match.bank_ms],
            "bot_seed": match.bot_seed,
        }
        print("INFO " + json.dumps(told), file=sys.stderr, flush=True)

    def act(self, observation: Any) -> Any:
        if self.on_ladder:
            raise RuntimeError("this looks like a ladder leg: crashing on purpose")
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(LadderSpotter())
