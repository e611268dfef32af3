"""Validation: a submitted bot's checks and its first match, in the sandbox, before it may play for real."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from arena import loop
from arena.checks.check import CheckReport, run_checks
from arena.games.registry import get_game
from arena.ladder.shape import draw_seating, shapes
from arena.runner.deals import new_seed
from arena.runner.records import MatchRecord
from arena.runner.terms import Limits, Status
from arena.sandbox.base import BotProgram, Sandbox
from arena.submissions import Artifact, SubmissionError
from arena.transport.process import play_match


@dataclass(frozen=True)
class ValidationReport:
    passed: bool
    statuses: list[str]
    """The submitted bot's status in each validation game (a game's worst of its seats where it
    fills two)."""
    log: str
    """The checks' verdicts (``arena bot check``), then the bot's log from the validation match
    (stderr, capped, with its last traceback; each of its processes' where it fills two seats)."""
    record: MatchRecord
    checks: CheckReport

    def summary(self) -> str:
        """The verdict's reasons in a line: the checks failed, and the games' statuses counted."""
        failed = sum(not result.passed for result in self.checks.results)
        checks = f"{failed} of {len(self.checks.results)} checks failed" if failed else "every check passed"
        counted = Counter(self.statuses)
        return f"{checks}; {len(self.statuses)} games: " + ", ".join(
            f"{status} {count}" for status, count in sorted(counted.items())
        )


UNSEATED_IN_VALIDATION = frozenset({"search"})
"""Built-ins validation does not seat against the bot: kozel's search bot thinks 20-50 ms a
decision, and a 12-game validation match with it took 112 s on this 2-core machine at a load of 17
(5 to 20 s with the other built-ins)."""


def validate(artifact: Artifact, game_name: str, sandbox: Sandbox) -> ValidationReport:
    """Run ``artifact`` through its game's checks (``arena.checks``: the situations random play
    rarely reaches) and play it a rated ladder's match against the built-in bots in ``sandbox``;
    it passes if every check passes and every game is ``ok``.

    To the bot each leg of it is a rated ladder leg (a bot that behaved only while validated would
    pass and then cheat): its shape is drawn from those the game's ladder takes
    (``arena.ladder.shape``: seats, games per process, duplicate legs, a kozel bot's partner its
    own second process), seated as the ladder seats it, with the ladder's clocks, a secret seed and
    seats that are not named to bots."""
    game = get_game(game_name)
    if not sandbox.isolates:
        raise SubmissionError("validation runs submitted code: it needs an isolating sandbox, not 'none'")
    bot = BotProgram(game=game.name, code_dir=artifact.folder, entry=artifact.entry)
    checks = run_checks(bot, game.name, sandbox)
    builtins = [f"builtin:{name}" for name in game.builtin_bots if name not in UNSEATED_IN_VALIDATION]
    rng = random.SystemRandom()
    shape = rng.choice(shapes(game.name))
    specs: tuple[str | BotProgram, ...] = draw_seating(shape, bot, builtins, rng)
    mine = [agent for agent, spec in enumerate(specs) if spec is bot]
    record = loop.run(
        play_match(
            game,
            game.config_type(),
            specs,
            sandbox,
            names=["submission" if spec is bot else str(spec) for spec in specs],
            games=shape.games,
            seed=new_seed(),
            duplicate=shape.duplicate,
            limits=Limits(),
        )
    )
    statuses = [
        _worst(played.statuses[played.seating.index(agent)] for agent in mine) for played in record.games
    ]
    passed = checks.passed and all(status == Status.OK for status in statuses)
    log = "\n".join(checks.lines()) + "\n"
    if not checks.passed:
        log += f"---- the bot's log in the checks ----\n{checks.log.rstrip()}\n"
    for agent in mine:
        log += f"---- the bot's log in the validation match (seat {agent} of {shape.seats}) ----\n"
        log += f"{record.logs[agent].rstrip()}\n"
    return ValidationReport(passed=passed, statuses=statuses, log=log, record=record, checks=checks)


def _worst(statuses: Iterable[Status]) -> str:
    """A game's status for a bot in one or more seats: its first fault, else ``ok``."""
    return str(next((status for status in statuses if status != Status.OK), Status.OK))
