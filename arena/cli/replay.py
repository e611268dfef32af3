"""``arena replay``: a replay file shown readably, verified by playing it again, or rerun with
another bot in a seat."""

from __future__ import annotations

import argparse
from pathlib import Path

from arena import rerun
from arena.bots import WHAT_A_BOT_IS
from arena.cli.args import not_negative, positive
from arena.cli.play import choose_sandbox, display_names, save, with_progress
from arena.runner import replay


def register(name: str, parser: argparse.ArgumentParser) -> None:
    replay_commands = parser.add_subparsers(dest="replay_command", required=True, metavar="ACTION")
    show = replay_commands.add_parser("show", help="print a replay readably")
    show.add_argument("file", type=Path)
    show.add_argument("--game", type=int, action="append", help="only this game index (repeatable)")
    verify = replay_commands.add_parser("verify", help="re-execute a replay and say whether it matches")
    verify.add_argument("file", type=Path)
    again = replay_commands.add_parser(
        "rerun",
        help="replay a recorded match's deals with your bot in one seat",
        description="Deal a recorded match's games again (same game version, config, seed and "
        "rotation) with BOT in one seat, run as in `arena play`; every other seat plays its recorded "
        "decisions while they are legal, then a built-in bot for the rest of that game.",
        epilog=f"BOT: {WHAT_A_BOT_IS}.",
    )
    again.add_argument("file", type=Path)
    again.add_argument("--seat", type=not_negative, required=True, help="the seat, as in the first game")
    again.add_argument("--bot", required=True, help="the bot to play that seat")
    again.add_argument("--others", default="builtin:random", help="the other seats' fallback bot")
    again.add_argument("--games", type=positive, help="only the first N games (default all)")
    again.add_argument("--sandbox", choices=["bubblewrap", "none"], default="bubblewrap")
    again.add_argument("--replays", type=Path, default=Path("replays"), help="folder for the new replay")
    again.add_argument("--quiet", action="store_true", help="no progress bar")
    show.set_defaults(handler=cmd_show)
    verify.set_defaults(handler=lambda args: cmd_verify(args.file))
    again.set_defaults(handler=cmd_rerun)


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


def cmd_verify(path: Path) -> int:
    data = replay.load(path)
    problems = replay.verify(data)
    if problems:
        print(f"MISMATCH: {path} does not replay ({len(problems)} problem(s)):")
        for problem in problems:
            print(f"  {problem}")
        return 1
    print(f"OK: {path} replays exactly ({len(data['games'])} game(s))")
    return 0
