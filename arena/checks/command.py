"""``arena bot check PATH --game GAME``: the command's work, apart from its parser in ``arena.cli``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.bots import check_spec
from arena.checks.check import run_checks
from arena.games.registry import get_game
from arena.sandbox.base import BotProgram, Sandbox
from arena.submissions import read_submission
from arena.text import escape_controls


def check_command(path: Path, game_name: str, sandbox: Callable[[], Sandbox]) -> int:
    """Check the bot at ``path`` (``BotLoadError`` and the like for one that cannot be a bot):
    one line per situation and a summary, then the bot's log if anything failed. Exit status 0
    when every situation passed, 1 otherwise."""
    game = get_game(game_name)
    check_spec(game.name, str(path))
    program = BotProgram.from_spec(game.name, str(path))
    if program.code_dir is not None:
        # What the sandbox will copy to /bot: the bot's folder, under a submission's rules.
        read_submission(program.code_dir, skip_hidden=True)
    report = run_checks(program, game.name, sandbox())
    # A detail holds what the bot sent (an action's repr, its error message): no control characters.
    print(escape_controls("\n".join(report.lines())))
    if not report.passed:
        print("---- bot log ----")
        print(escape_controls(report.log.rstrip()) or "(empty)")
        print("-----------------")
    return 0 if report.passed else 1
