"""Rerun a recorded match with a new bot in one seat: ``arena replay rerun``.

The recorded match's deals are played again with the new bot in one seat, as a bot process in the
sandbox exactly as in ``arena play``. Every other seat replays its recorded decisions while they are
legal, then a built-in bot plays it for the rest of the game; ``RerunRunner`` answers for that bot
with the recorded action while the record holds. A rerun with the same bot in the same seat follows
the record exactly.

In full: docs/replays.md.
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots import check_spec, is_builtin, load_bot
from arena.games.base import Game, GameConfig, GameResult, GameState, IllegalAction
from arena.games.registry import all_games
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner, ProgressCallback
from arena.runner.records import GameRecord, MatchRecord
from arena.runner.terms import Agent, FaultPolicy, Limits, Reply
from arena.sandbox.base import Sandbox
from arena.submissions import read_submission
from arena.transport.process import play_match


@dataclass(frozen=True)
class Rerun:
    """A recorded match checked for a rerun: the author's ``bot`` in the seat agent ``agent`` had
    (its seat in the first game; with rotation that bot's seat in each game), ``others`` playing on
    wherever a recorded seat's decisions stop being legal, over the first ``games`` games."""

    path: Path
    data: dict[str, Any]
    game: Game[Any, Any, Any]
    config: GameConfig
    limits: Limits
    policy: FaultPolicy
    agent: int
    bot: str
    others: str
    games: int

    def recorded(self, index: int) -> dict[str, Any]:
        record: dict[str, Any] = self.data["games"][index]
        return record


def prepare(path: Path, seat: int, bot: str, others: str, games: int | None) -> Rerun:
    """Load and check a replay for a rerun; bad input raises ``ReplayError`` or
    ``BotLoadError`` with a message that says what is wrong."""
    data = replay.load(path)
    if data["schema_version"] != replay.SCHEMA_VERSION:
        raise replay.ReplayError(
            f"{path}: a replay of schema version {data['schema_version']} derives its deals' seeds "
            "as this arena no longer does: a rerun cannot deal its games again"
        )
    game = _recorded_game(path, data)
    config = game.config_type.from_dict(data["config"])
    limits, policy = Limits(**data["limits"]), FaultPolicy(**data["policy"])
    seats, played = len(data["seats"]), len(data["games"])
    indices = [record["index"] for record in data["games"]]
    if indices != list(range(played)):
        raise replay.ReplayError(f"{path}: its games are not numbered 0 to {played - 1} in order")
    if not 0 <= seat < seats:
        raise replay.ReplayError(f"--seat {seat}: {path} has {seats} seats, numbered from 0")
    if games is not None and games > played:
        raise replay.ReplayError(f"--games {games}: {path} has {played} game(s)")
    check_spec(game.name, bot)
    check_spec(game.name, others)
    if not is_builtin(others):
        raise replay.ReplayError(
            f"--others {others}: the other seats fall back to a built-in bot, builtin:NAME"
        )
    if not is_builtin(bot):
        # What the sandbox will copy to /bot: the bot file's folder, under a submission's rules.
        read_submission(Path(bot).resolve().parent, skip_hidden=True)
    rerun = Rerun(
        path, data, game, config, limits, policy, seat, bot, others, played if games is None else games
    )
    for index in range(rerun.games):
        problems = replay.replay_game(data, index)[1]
        if problems:
            raise replay.ReplayError(
                f"{path} does not replay as recorded, so a rerun could not deal its games again: "
                f"{problems[0]} (`arena replay verify` lists every problem)"
            )
    return rerun


def _recorded_game(path: Path, data: dict[str, Any]) -> Game[Any, Any, Any]:
    """The game the replay was played under; refused if this arena has another version of it (its
    rules, and maybe its deals, differ: the record could not be followed)."""
    name, version = data["game"], data["game_version"]
    versions = {game.version: game for game in all_games() if game.name == name}
    if version in versions:
        return versions[version]
    if not versions:
        raise replay.ReplayError(f"{path}: a replay of {name!r}, a game this arena does not know")
    current = ", ".join(f"{name}@{known}" for known in versions)
    raise replay.ReplayError(
        f"{path}: played under {name}@{version}, and this arena plays only {current}: "
        f"a rerun cannot reproduce {name}@{version}'s deals and rules"
    )


class RerunRunner(MatchRunner):
    """A match runner that answers for every seat but the author's with its recorded decision while that
    is legal in the state reached, and asks the seat's agent (the fallback bot) from the first decision
    where it is not, for the rest of the game."""

    def __init__(self, *args: Any, rerun: Rerun, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.rerun = rerun
        self.record.specs = tuple(
            spec if agent == rerun.agent else f"recorded {seat['spec']}, then {rerun.others}"
            for agent, (spec, seat) in enumerate(zip(self.record.specs, rerun.data["seats"], strict=True))
        )
        self.pending: dict[int, deque[Any]] = {}
        """Per seat, its recorded decisions in the game being played, not yet played."""
        self.followed: dict[int, int] = {}
        """Per seat, how many of them it has played."""
        self.fell_back: dict[int, dict[int, int]] = {}
        """Per game index, per seat that fell back: how many recorded decisions it played first."""
        self.falling: dict[int, int] = {}
        """The game being played's entry in ``fell_back`` (with duplicate deals, a leg's games are
        not the match's in order)."""

    async def _play_game(self, game_index: int) -> GameRecord:
        self.pending = {seat: deque() for seat in range(len(self.agents))}
        for seat, action, _ms in self.rerun.recorded(game_index)["actions"]:
            self.pending[seat].append(replay.action_from_json(self.game, action))
        self.followed = dict.fromkeys(self.pending, 0)
        self.falling = self.fell_back[game_index] = {}
        return await super()._play_game(game_index)

    async def _ask(
        self, state: GameState[Any, Any], seat: int, agent_index: int
    ) -> tuple[Any, float, Reply | None]:
        if agent_index != self.rerun.agent and seat not in self.falling:
            pending = self.pending[seat]
            if pending and _legal(self.game, state, pending[0]):
                self.followed[seat] += 1
                return pending.popleft(), 0.0, None
            self.falling[seat] = self.followed[seat]
        return await super()._ask(state, seat, agent_index)


def _legal(game: Game[Any, Any, Any], state: GameState[Any, Any], action: Any) -> bool:
    try:
        MatchRunner._check_legal(state, action, state.legal_actions(), game.lists_all_actions)
    except IllegalAction:
        return False
    return True


async def play(
    rerun: Rerun, sandbox: Sandbox, name: str, on_game: ProgressCallback | None = None
) -> tuple[MatchRecord, list[GameOutcome]]:
    """Play the rerun: the author's bot as a process in ``sandbox``, named ``name``, the others in this
    process. Returns the new record and each game beside its record."""

    data = rerun.data
    agents: list[str | Agent] = [
        rerun.bot
        if agent == rerun.agent
        else InProcessAgent(load_bot(rerun.game.name, rerun.others), f"{seat['name']} (rec)")
        for agent, seat in enumerate(data["seats"])
    ]
    runners: list[RerunRunner] = []

    def runner(*args: Any, **kwargs: Any) -> RerunRunner:
        runners.append(RerunRunner(*args, rerun=rerun, **kwargs))
        return runners[-1]

    record = await play_match(
        rerun.game,
        rerun.config,
        agents,
        sandbox,
        [name if isinstance(agent, str) else agent.name for agent in agents],
        on_game,
        runner,
        games=rerun.games,
        seed=data["seed"],
        limits=rerun.limits,
        policy=rerun.policy,
        rotate=data["rotate"],
        duplicate=data.get("duplicate", False),
    )
    return record, compare(rerun, record, runners[0].fell_back)


@dataclass(frozen=True)
class GameOutcome:
    """How one rerun game went beside its record."""

    index: int
    seat: int
    """The author's bot's seat in this game."""
    decisions: int
    recorded_decisions: int
    diverged_at: int | None
    """The first decision that differs from the record (or where one list ends); None if none does."""
    fell_back: dict[int, int]
    """Per seat whose recorded decisions stopped being legal: the decision from which the fallback
    bot played it."""
    result: GameResult
    recorded: GameResult

    def describe(self, name: str, others: str) -> str:
        if self.diverged_at is None:
            course = f"followed the record, all {self.decisions} decisions"
        else:
            course = (
                f"diverged from the record at decision {self.diverged_at} "
                f"({self.decisions} decisions, {self.recorded_decisions} recorded); "
            )
            course += (
                f"{others} played on for "
                + ", ".join(f"seat {seat} from decision {at}" for seat, at in sorted(self.fell_back.items()))
                if self.fell_back
                else "every other seat's recorded decisions stayed legal"
            )
        return (
            f"game {self.index}: {course}; {name} (seat {self.seat}): {_standing(self.result, self.seat)} "
            f"(recorded: {_standing(self.recorded, self.seat)})"
        )


def _standing(result: GameResult, seat: int) -> str:
    return f"place {result.ranks[seat] + 1}, score {result.scores[seat]:g}"


def compare(rerun: Rerun, record: MatchRecord, fell_back: dict[int, dict[int, int]]) -> list[GameOutcome]:
    """Each rerun game beside its record."""
    outcomes = []
    for game in record.games:
        recorded = rerun.recorded(game.index)
        before = [pair[:2] for pair in recorded["actions"]]
        # Through JSON, as recorded: tuples become lists.
        now = json.loads(json.dumps([[seat, replay.action_to_json(action)] for seat, action in game.actions]))
        diverged = next(
            (number for number, (old, new) in enumerate(zip(before, now, strict=False)) if old != new),
            None if len(before) == len(now) else min(len(before), len(now)),
        )
        assert game.result is not None
        seats = [seat for seat, _ in game.actions]
        outcomes.append(
            GameOutcome(
                index=game.index,
                seat=game.seating.index(rerun.agent),
                decisions=len(now),
                recorded_decisions=len(before),
                diverged_at=diverged,
                fell_back={
                    seat: [number for number, acting in enumerate(seats) if acting == seat][played]
                    for seat, played in fell_back[game.index].items()
                },
                result=game.result,
                recorded=GameResult.from_dict(recorded["result"]),
            )
        )
    return outcomes


def report(rerun: Rerun, outcomes: list[GameOutcome], name: str) -> str:
    """Per game, whether it followed the record and how the author's bot did; then a summary."""
    lines = [outcome.describe(name, rerun.others) for outcome in outcomes]
    followed = sum(outcome.diverged_at is None for outcome in outcomes)
    total = sum(outcome.result.scores[outcome.seat] for outcome in outcomes)
    before = sum(outcome.recorded.scores[outcome.seat] for outcome in outcomes)
    wins = sum(outcome.result.ranks[outcome.seat] == 0 for outcome in outcomes)
    won = sum(outcome.recorded.ranks[outcome.seat] == 0 for outcome in outcomes)
    lines.append(
        f"{followed} of {len(outcomes)} game(s) followed the record; {name} in seat {rerun.agent}: "
        f"{wins} win(s), total score {total:g} (recorded: {won} win(s), total score {before:g})"
    )
    return "\n".join(lines)
