"""The trusted fast path: a bot object called directly in the runner's process."""

from __future__ import annotations

import time
import traceback
from collections.abc import Sequence
from typing import Any

from arena.games.base import GameResult
from arena.games.bot import Bot, MatchInfo
from arena.runner.logs import CappedLog
from arena.runner.terms import Agent, MatchSetup, Reply, Status


class InProcessAgent(Agent):
    """Runs a ``Bot`` in this process. Same clocks and statuses as a bot process, no isolation:
    only for bots you trust (built-ins, your own code)."""

    def __init__(self, bot: Bot[Any, Any], name: str | None = None) -> None:
        self.bot = bot
        self.name = name or bot.display_name()
        self.log = CappedLog()

    def _failure(self, status: Status = Status.CRASH) -> Reply:
        detail = traceback.format_exc()
        self.log.write(detail)
        return Reply(status=status, detail=detail.strip().splitlines()[-1])

    async def start_match(self, setup: MatchSetup, agent_index: int) -> Reply:
        info = MatchInfo(
            match_id=setup.match_id,
            game=setup.game.name,
            game_version=setup.game.version,
            config=setup.config,
            seat=agent_index,
            seat_names=setup.names,
            teams=tuple(setup.game.team_of(seat) for seat in range(len(setup.names))),
            games=setup.games,
            decision_ms=setup.limits.decision_ms,
            bank_ms=setup.limits.bank_ms,
            bot_seed=setup.bot_seeds[agent_index],
        )
        try:
            self.bot.begin_match(info)
        except Exception:
            return self._failure()
        return Reply()

    async def start_game(self, game_index: int, seat: int) -> None:
        try:
            self.bot.begin_game(game_index, seat)
        except Exception:
            self._failure()

    async def decide(
        self, decision_id: int, observation: Any, legal: Sequence[Any], decision_ms: int, bank_ms: int
    ) -> Reply:
        started = time.perf_counter()
        try:
            action = self.bot.decide(observation, legal, decision_ms + bank_ms)
        except Exception:
            return self._failure()
        if (time.perf_counter() - started) * 1000.0 > decision_ms + bank_ms:
            return Reply(status=Status.TIMEOUT, detail=f"took longer than {decision_ms + bank_ms} ms")
        return Reply(action=action)

    async def fault(self, decision_id: int, status: Status, detail: str) -> None:
        self.log.write(f"arena: decision {decision_id}: {status}: {detail}\n")

    async def end_game(self, game_index: int, result: GameResult, statuses: Sequence[str]) -> None:
        try:
            self.bot.on_game_end(game_index, result)
        except Exception:
            self._failure()

    async def end_match(self, totals: Sequence[float], detail: str) -> None:
        try:
            self.bot.on_match_end()
        except Exception:
            self._failure()

    async def close(self) -> None:
        return None

    def log_text(self) -> str:
        return self.log.text()
