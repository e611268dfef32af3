"""``arena replay``: a replay file shown readably, verified by playing it again, or rerun with
another bot in a seat."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena import rerun
from arena.cli.play import choose_sandbox, display_names, save, with_progress
from arena.runner import replay


def cmd_show(args: argparse.Namespace) -> int:
    print(replay.describe(replay.load(args.file), args.game, str(args.file)))
    return 0


def cmd_rerun(args: argparse.Namespace) -> int:
    plan = rerun.prepare(args.file, args.seat, args.bot, args.others, args.games)
    args.replays.mkdir(parents=True, exist_ok=True)
    name = display_names([args.bot])[0]
    sandbox = choose_sandbox(args.sandbox)
    (record, outcomes), elapsed = with_progress(
        args.quiet,
        plan.games,
        f"rerun {plan.game.name}",
        lambda on_game: rerun.play(plan, sandbox, name, on_game),
    )
    print(rerun.report(plan, outcomes, name))
    save(record, list(record.names), elapsed, args.replays, None)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    path: Path = args.file
    data = replay.load(path)
    problems = replay.verify(data)
    if problems:
        print(f"MISMATCH: {path} does not replay ({len(problems)} problem(s)):")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print(f"OK: {path} replays exactly ({len(data['games'])} game(s))")
    return 0
