"""Plays at random, taking 0.3 s over every decision (any game: every action it plays is listed)."""

import time
from typing import Any

from sdk import Bot, run


class Slow(Bot[Any, Any]):
    def act(self, observation: Any) -> Any:
        time.sleep(0.3)
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(Slow())
