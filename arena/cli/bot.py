"""``arena bot``: check a bot, validate a submission in the sandbox, submit it to the platform."""

from __future__ import annotations

import argparse

from arena.checks.command import check_command
from arena.cli.play import choose_sandbox
from arena.cli.services import current_user, open_store, uses_store
from arena.games.registry import get_game
from arena.sandbox.backends import make_sandbox
from arena.store.db import data_home
from arena.submissions import store_submission
from arena.text import escape_controls
from arena.tournament.service import submit
from arena.tournament.validation import validate


def cmd_check(args: argparse.Namespace) -> int:
    return check_command(args.path, args.game, lambda: choose_sandbox(args.sandbox))


def cmd_validate(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    artifact = store_submission(args.path, args.store, args.entry)
    print(f"stored: {artifact.folder} (sha256 {artifact.digest}, entry {artifact.entry})")
    report = validate(artifact, game.name, make_sandbox("bubblewrap"))
    print("---- validation log ----")
    print(report.log.rstrip() or "(empty)")
    print("------------------------")
    print(f"validation {'PASSED' if report.passed else 'FAILED'}: {report.summary()}")
    return 0 if report.passed else 1


@uses_store
def cmd_submit(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    store = open_store(args)
    user = current_user(store, args)
    print(f"storing {args.path} and validating it in the sandbox")
    submitted = submit(store, data_home(), user, game.name, args.name, args.path, args.entry)
    report = submitted.report
    print("---- validation log ----")
    print(escape_controls(report.log.rstrip()) or "(empty)")
    print("------------------------")
    if not report.passed:
        print(
            f"validation FAILED ({report.summary()}): {args.name} version {submitted.version_id} may not play"
        )
        return 1
    print(
        f"bot {args.name} version {submitted.version_id} passed validation: it is on the {game.name} "
        "ladder, which a scheduler service plays (`arena scheduler`, or `arena serve`), and may enter "
        f"{game.name} tournaments"
    )
    return 0
