"""Plays at random, taking 1.2 s over every decision whatever its clock says, as if its time bank
never ran out (any game: every action it plays is listed)."""

import time
from typing import Any

from sdk import Bot, run


class Slow(Bot[Any, Any]):
    def act(self, observation: Any) -> Any:
        time.sleep(1.2)
        return self.rng.choice(self.legal_actions)


if __name__ == "__main__":
    run(Slow())
