"""What a match leaves: a record of every game it played and of the match itself.

A record holds each game's seed, seating, actions and their times, faults, forfeits, statuses and
result; the match's terms, timings and its bots' logs. Replays, the store and the ratings read a
match from its record.

Where a match's games are streamed out as they end (a ``GameSink``: ``arena.runner.replay.ReplaySpool``
for the tournaments' workers), each finished game keeps only its summary (``GameRecord.shed``): its
index, seed, seating, statuses, forfeits, result and per-seat decisions and think time. The arena's
memory then holds one game's actions at a time, however long the match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from arena.games.base import Game, GameConfig, GameResult
from arena.runner.terms import FaultPolicy, Limits, Status

FAULT_DETAIL_BYTES = 2048
"""What is kept of a fault's detail: a bot controls part of it (an illegal action's repr, its
own failure report), and it is stored in the replay and sent back to the bot."""


@dataclass
class FaultRecord:
    game_index: int
    decision: int
    """Index of the decision in the game's action list."""
    seat: int
    agent: int
    status: Status
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "seat": self.seat,
            "agent": self.agent,
            "status": str(self.status),
            "detail": self.detail,
        }


@dataclass
class GameRecord:
    index: int
    seed: int
    seating: tuple[int, ...]
    """``seating[seat]`` is the agent playing that seat."""
    actions: list[tuple[int, Any]] = field(default_factory=list)
    times_ms: list[float] = field(default_factory=list)
    fallback: list[int] = field(default_factory=list)
    """Indices of actions chosen by the fallback for a forfeited seat."""
    faults: list[FaultRecord] = field(default_factory=list)
    forfeited: list[int] = field(default_factory=list)
    """Seats that forfeited this game."""
    statuses: list[Status] = field(default_factory=list)
    result: GameResult | None = None
    engine_result: GameResult | None = None
    reveal: Any = None
    shed: bool = False
    """Whether its actions, times, fallback, faults and final state are gone (``shed``): streamed out."""
    seat_decisions: list[int] = field(default_factory=list)
    """Per seat, decisions made (a shed game's, which has no actions left to count)."""
    seat_ms: list[float] = field(default_factory=list)
    """Per seat, milliseconds taken by its decisions (a shed game's)."""

    def seat_totals(self) -> tuple[list[int], list[float]]:
        """Per seat, the decisions it made in this game and the milliseconds they took."""
        if self.shed:
            return list(self.seat_decisions), list(self.seat_ms)
        decisions, think = [0] * len(self.seating), [0.0] * len(self.seating)
        for (seat, _), ms in zip(self.actions, self.times_ms, strict=True):
            decisions[seat] += 1
            think[seat] += ms
        return decisions, think

    def decision_count(self) -> int:
        """Decisions in this game, shed or not."""
        return sum(self.seat_decisions) if self.shed else len(self.actions)

    def shed_detail(self) -> None:
        """Keep only the game's summary: its actions, their times, the fallback's indices, the
        faults and the final state go (a ``GameSink`` has them). What the match's results, the
        store's rows and a following game's carried deal read stays: seating, statuses, forfeits,
        results, and per seat the decisions and their time."""
        if self.shed:
            return
        self.seat_decisions, self.seat_ms = self.seat_totals()
        self.actions, self.times_ms, self.fallback, self.faults = [], [], [], []
        self.reveal, self.shed = None, True


class GameSink(Protocol):
    """Where a match's finished games go as they end (``MatchRunner(sink=...)``): each game's
    whole record is handed over once, after the runner's ``on_game``, and then shed."""

    def add(self, record: MatchRecord, game: GameRecord) -> None: ...


@dataclass
class MatchRecord:
    match_id: str
    game: Game[Any, Any, Any]
    config: GameConfig
    seed: int
    names: tuple[str, ...]
    specs: tuple[str, ...]
    limits: Limits
    policy: FaultPolicy
    rotate: bool
    duplicate: bool = False
    """Each deal is replayed once per seat rotation (games i*n .. i*n+n-1 share deal i)."""
    games: list[GameRecord] = field(default_factory=list)
    started_at: float = 0.0
    duration_s: float = 0.0
    startup_s: float = 0.0
    """Time to start every agent (bot processes connecting)."""
    play_s: float = 0.0
    """Time spent playing the games, start-up and shutdown excluded."""
    logs: list[str] = field(default_factory=list)

    def decisions(self) -> int:
        return sum(game.decision_count() for game in self.games)

    def decide_ms(self) -> float:
        """Milliseconds the match's decisions took, all seats and games together."""
        return sum(sum(game.seat_totals()[1]) for game in self.games)

    def agent_summary(self) -> list[dict[str, Any]]:
        """Per agent: games, wins, mean rank (1 = best), statuses, decisions and think time."""
        rows: list[dict[str, Any]] = []
        for agent, name in enumerate(self.names):
            wins, ranks, statuses = 0, [], {str(status): 0 for status in Status}
            decisions, think = 0, 0.0
            for game in self.games:
                seat = game.seating.index(agent)
                assert game.result is not None
                ranks.append(game.result.ranks[seat] + 1)
                wins += game.result.ranks[seat] == 0
                statuses[str(game.statuses[seat])] += 1
                made, took = game.seat_totals()
                decisions += made[seat]
                think += took[seat]
            rows.append(
                {
                    "agent": agent,
                    "name": name,
                    "games": len(self.games),
                    "wins": wins,
                    "mean_rank": sum(ranks) / len(ranks) if ranks else 0.0,
                    "statuses": statuses,
                    "decisions": decisions,
                    "mean_ms": think / decisions if decisions else 0.0,
                }
            )
        return rows
