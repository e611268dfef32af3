"""The ``arena`` command: list games, play local matches, inspect and verify replays."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from arena import loop, match_cli
from arena.bots import WHAT_A_BOT_IS, BotLoadError, check_spec, is_builtin, load_bot
from arena.games.base import BadConfig, Game, GameConfig
from arena.games.registry import all_games, get_game
from arena.manifest import MANIFEST, RUNTIMES, python_runtime
from arena.runner import replay
from arena.runner.deals import new_seed
from arena.runner.match import MatchRunner, ProgressCallback
from arena.runner.progress import ProgressBar
from arena.runner.records import GameRecord, MatchRecord
from arena.runner.terms import FaultPolicy, Limits, Status
from arena.sandbox import BotProgram, NoSandbox, Sandbox, SandboxError, make_sandbox
from arena.store.errors import StoreError
from arena.submissions import SubmissionError, read_submission, store_submission
from arena.text import escape_controls, terminal_guard
from arena.tournament.abtest_args import add_test_command
from arena.tournament.cli_args import (
    SERVER_COMMANDS,
    Parser,
    UsageError,
    add_commands,
    positive,
    whole_number,
    with_store,
)
from arena.tournament.validation import validate as validate_submission

EXAMPLES = """examples:
  arena games
  arena play edible builtin:heuristic builtin:random builtin:random --games 200 --seed 7
  arena play edible my_bot.py builtin:random --in-process
  arena replay show replays/edible-1a2b3c4d5e6f.json --game 0
  arena replay verify replays/edible-1a2b3c4d5e6f.json
  arena match save 12 && arena replay verify match-12-replay.json
"""


_not_negative = whole_number(0)
T = TypeVar("T")


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="arena",
        description="Card Arena: play bot matches for Edible, Believe and Kozel.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    commands.add_parser("games", help="list the games, their seats, built-in bots and rules pages")
    commands.add_parser(
        "runtimes",
        help=f"list the languages a bot may be written in here (what {MANIFEST} may run)",
        description=f"A bot in another language than Python is a folder (or zip) with an {MANIFEST} "
        'naming its command, e.g. run = ["node", "bot.js"]: a runtime installed here, or a program '
        'of its own such as a static binary (run = ["./bot"]).',
    )

    play = commands.add_parser(
        "play",
        help="play a match between bots on this machine",
        description="Play a match: a series of games among the given bots, one bot per seat. "
        "By default every bot is its own process talking gRPC, exactly as on the platform.",
        epilog=f"BOT: {WHAT_A_BOT_IS}.",
    )
    play.add_argument("game", help="game name, e.g. edible (or edible@1 for an exact rules version)")
    play.add_argument("bots", nargs="+", metavar="BOT", help="one bot per seat, in seat order")
    play.add_argument("--games", type=positive, default=100, help="games in the match (default 100)")
    play.add_argument(
        "--seed",
        type=_not_negative,
        help="fix every deal and the bots' own seeds, to replay a match exactly (default: a secret "
        "128-bit seed; note that a bot can work out a chosen seed, and then every hidden card)",
    )
    play.add_argument("--in-process", action="store_true", help="trusted fast path: bots run in this process")
    play.add_argument(
        "--sandbox",
        choices=["bubblewrap", "none"],
        default="bubblewrap",
        help="how bot processes are isolated (default bubblewrap; none only for bots you trust)",
    )
    play.add_argument(
        "--no-rotate", action="store_true", help="keep seats fixed instead of rotating each game"
    )
    play.add_argument(
        "--decision-ms", type=positive, default=Limits.decision_ms, help="per-decision time (ms)"
    )
    play.add_argument("--bank-ms", type=_not_negative, default=Limits.bank_ms, help="match time bank (ms)")
    play.add_argument(
        "--max-faults", type=positive, default=FaultPolicy.max_faults, help="faults that forfeit the match"
    )
    play.add_argument("--config", default="{}", help="game config as JSON, e.g. '{\"action_cap\": 500}'")
    play.add_argument(
        "--replays", type=Path, default=Path("replays"), help="folder for the replay (default ./replays)"
    )
    play.add_argument(
        "--logs", type=Path, default=None, help="folder for each bot's log (default: beside the replay)"
    )
    play.add_argument("--quiet", action="store_true", help="no progress bar")

    bot_parser = commands.add_parser("bot", help="check and store bot submissions")
    bot_commands = bot_parser.add_subparsers(dest="bot_command", required=True, metavar="ACTION")
    validate = bot_commands.add_parser(
        "validate",
        help="store a submission by content hash and play its validation match in the sandbox",
        description="A submission is a .py file, a .zip or a folder (give --entry when it holds "
        "several .py files). It is checked (sizes, no links or paths escaping it), stored read-only "
        "by content hash, and must then finish a validation match against built-in bots in the "
        "bubblewrap sandbox with every game ok. The bot's log is printed.",
    )
    validate.add_argument("path", type=Path, help="the .py file, .zip or folder")
    validate.add_argument("--game", required=True, help="the game the bot plays")
    validate.add_argument("--entry", help="entry point inside a zip or folder, e.g. bot.py")
    validate.add_argument(
        "--store", type=Path, default=Path("arena-data"), help="store folder (default ./arena-data)"
    )

    check = bot_commands.add_parser(
        "check",
        help="run a bot through scripted situations of its game and report each as pass or fail",
        description="The bot runs as its own process, as in a match, and is asked in situations random "
        "play rarely reaches: every phase of the game, the largest observations, a decision near its "
        "deadline, playing on after a fault. Exit status 0 when all pass, 1 otherwise.",
    )
    check.add_argument("path", type=Path, help="the bot: a .py file, or a folder with an arena-bot.toml")
    check.add_argument("--game", required=True, help="the game the bot plays")
    check.add_argument(
        "--sandbox",
        choices=["bubblewrap", "none"],
        default="bubblewrap",
        help="how the bot process is isolated (default bubblewrap; none only for a bot you trust)",
    )

    submit = with_store(
        bot_commands.add_parser(
            "submit",
            help="submit a bot version: stored, validated in the sandbox, then on its game's ladder "
            "and free to enter tournaments",
        )
    )
    submit.add_argument("path", type=Path, help="the .py file, .zip or folder")
    submit.add_argument("--name", required=True, help="the bot's name (yours once taken)")
    submit.add_argument("--game", required=True)
    submit.add_argument("--entry", help="entry point inside a zip or folder")
    add_test_command(bot_commands)
    add_commands(commands)
    match_cli.add_commands(commands)

    replay_parser = commands.add_parser("replay", help="inspect or verify a replay file")
    replay_commands = replay_parser.add_subparsers(dest="replay_command", required=True, metavar="ACTION")
    show = replay_commands.add_parser("show", help="print a replay readably")
    show.add_argument("file", type=Path)
    show.add_argument("--game", type=int, action="append", help="only this game index (repeatable)")
    verify = replay_commands.add_parser("verify", help="re-execute a replay and say whether it matches")
    verify.add_argument("file", type=Path)
    rerun = replay_commands.add_parser(
        "rerun",
        help="replay a recorded match's deals with your bot in one seat",
        description="Deal a recorded match's games again (same game version, config, seed and "
        "rotation) with BOT in one seat, run as in `arena play`; every other seat plays its recorded "
        "decisions while they are legal, then a built-in bot for the rest of that game.",
        epilog=f"BOT: {WHAT_A_BOT_IS}.",
    )
    rerun.add_argument("file", type=Path)
    rerun.add_argument("--seat", type=_not_negative, required=True, help="the seat, as in the first game")
    rerun.add_argument("--bot", required=True, help="the bot to play that seat")
    rerun.add_argument("--others", default="builtin:random", help="the other seats' fallback bot")
    rerun.add_argument("--games", type=positive, help="only the first N games (default all)")
    rerun.add_argument("--sandbox", choices=["bubblewrap", "none"], default="bubblewrap")
    rerun.add_argument("--replays", type=Path, default=Path("replays"), help="folder for the new replay")
    rerun.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Bad input and Ctrl-C end it with one line on stderr, never a traceback:
    exit status 2 for bad input, 3 for an infrastructure fault, 130 for an interruption. No control
    character but newline reaches stdout or stderr, whoever wrote the text (a bot's name or fault
    detail in a replay, a bot's log): see ``arena.text.terminal_guard``."""
    with terminal_guard():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    try:
        return run(build_parser().parse_args(argv))
    except (UsageError, BadConfig, BotLoadError, replay.ReplayError, SubmissionError, StoreError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:  # a file or folder named on the command line, or a server, out of reach
        where = f"{error.filename}: " if error.filename else ""
        print(f"arena: error: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    except SandboxError as error:
        print(f"arena: infrastructure error (not the bots' fault): {error}", file=sys.stderr)
        return 3
    except KeyboardInterrupt as interrupt:
        print(f"arena: interrupted{f': {interrupt}' if str(interrupt) else ''}", file=sys.stderr)
        return 130


def run(args: argparse.Namespace) -> int:
    if args.command == "games":
        return cmd_games()
    if args.command == "runtimes":
        return cmd_runtimes()
    if args.command == "play":
        return cmd_play(args)
    if args.command in SERVER_COMMANDS or getattr(args, "bot_command", "") == "submit":
        from arena.tournament.commands import dispatch

        return dispatch(args)
    if getattr(args, "bot_command", "") == "check":
        from arena.checks.command import check_command

        return check_command(args.path, args.game, lambda: choose_sandbox(args.sandbox))
    if getattr(args, "bot_command", "") == "test":
        from arena.tournament.abtest_command import cmd_bot_test

        return cmd_bot_test(args)
    if args.command == "bot":
        return cmd_validate(args)
    if args.command == "match":
        return match_cli.run(args)
    if args.replay_command == "show":
        print(replay.describe(replay.load(args.file), args.game, str(args.file)))
        return 0
    if args.replay_command == "rerun":
        return cmd_rerun(args)
    return cmd_verify(args.file)


def cmd_games() -> int:
    for game in all_games():
        bots = ", ".join(f"builtin:{name}" for name in game.builtin_bots)
        print(f"{game.name:<8} {game.title} (id {game.game_id}, {game.min_seats}-{game.max_seats} seats)")
        print(f"         rules: {game.rules_path}")
        print(f"         built-in bots: {bots or 'none'}")
    return 0


def cmd_runtimes() -> int:
    bots = python_runtime()
    missing = []
    print(f"{'runtime':<9} {'language':<22} {'version':<16} in {MANIFEST}")
    for runtime in RUNTIMES:
        # Python bots run on the bot runtime alone: without it, no Python bot runs sandboxed.
        version = runtime.version() if runtime.name != "python3" or bots.installed() else None
        if version is None:
            missing.append(runtime)
            continue
        print(f"{runtime.name:<9} {runtime.language:<22} {version:<16} {runtime.example}")
        if runtime.name == "python3":
            libraries = ", ".join(f"{name} {version}" for name, version in bots.libraries())
            print(f"{'':<9} bot runtime {bots.name} (a .py bot runs on it too): the standard library,")
            print(f"{'':<9} the SDK, the engines and: {libraries}")
    print(
        f"{'./PROGRAM':<9} {'your own program':<22} {'(always)':<16} " + 'run = ["./bot"]  (a static binary)'
    )
    for runtime in missing:
        fix = bots.missing() if runtime.name == "python3" else f"Debian: apt-get install {runtime.package}"
        print(f"not installed: {runtime.name} ({runtime.language}; {fix})")
    return 0


def parse_config(game: Game[Any, Any, Any], text: str) -> GameConfig:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"--config is not valid JSON: {error}") from None
    if not isinstance(data, dict):
        raise UsageError("--config must be a JSON object")
    return game.config_type.from_dict(data)


def cmd_play(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    game.check_seats(len(args.bots))
    config = parse_config(game, args.config)
    for spec in args.bots:
        check_spec(game.name, spec)
        if not is_builtin(spec) and not args.in_process:
            # What the sandbox will copy to /bot: the bot's folder, under a submission's rules.
            program = BotProgram.from_spec(game.name, spec)
            assert program.code_dir is not None
            read_submission(program.code_dir, skip_hidden=True)
    for folder in (args.replays, args.logs):  # where the results go, before the match is played
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
    limits = Limits(decision_ms=args.decision_ms, bank_ms=args.bank_ms)
    policy = FaultPolicy(max_faults=args.max_faults)
    names = _display_names(args.bots)
    record, elapsed = _with_progress(
        args.quiet,
        args.games,
        f"{game.name} {len(args.bots)} seats",
        lambda on_game: _run(game, config, args, names, limits, policy, on_game),
    )
    _save(record, names, elapsed, args.replays, args.logs)
    return 0


def _with_progress(
    quiet: bool, games: int, label: str, play: Callable[[ProgressCallback], Coroutine[Any, Any, T]]
) -> tuple[T, float]:
    """Play a match with a progress bar (unless ``quiet``); what ``play`` returns and the seconds it took."""
    bar = None if quiet else ProgressBar(games, label=label)

    def on_game(record: MatchRecord, game_record: GameRecord) -> None:
        if bar is not None:
            bar.update(len(record.games), f"{record.decisions()} decisions")

    started = time.perf_counter()
    try:
        record = loop.run(play(on_game))
    finally:
        if bar is not None:
            bar.close()
    return record, time.perf_counter() - started


def _save(
    record: MatchRecord, names: Sequence[str], elapsed: float, replays: Path, logs: Path | None
) -> None:
    """Write a played match's replay and its bots' logs, and print its results table."""
    path = replay.write(record, replays)
    log_folder = logs or replays / f"{record.game.name}-{record.match_id}-logs"
    log_folder.mkdir(parents=True, exist_ok=True)
    for index, text in enumerate(record.logs):
        (log_folder / f"seat{index}-{_file_safe(names[index])}.log").write_text(escape_controls(text))
    print(results_table(record, elapsed))
    print(f"replay: {path}\nlogs:   {log_folder}/")


async def _run(
    game: Game[Any, Any, Any],
    config: GameConfig,
    args: argparse.Namespace,
    names: list[str],
    limits: Limits,
    policy: FaultPolicy,
    on_game: Any,
) -> MatchRecord:
    seed = args.seed if args.seed is not None else new_seed()
    common: dict[str, Any] = {
        "games": args.games,
        "seed": seed,
        "limits": limits,
        "policy": policy,
        "rotate": not args.no_rotate,
    }
    if args.in_process:
        from arena.runner.inprocess import InProcessAgent

        agents = [
            InProcessAgent(load_bot(game.name, spec), name)
            for spec, name in zip(args.bots, names, strict=True)
        ]
        return await MatchRunner(game, config, agents, specs=args.bots, **common).run(on_game)
    from arena.transport.process import play_match

    sandbox = choose_sandbox(args.sandbox)
    return await play_match(game, config, args.bots, sandbox, names, on_game, **common)


def choose_sandbox(name: str) -> Sandbox:
    """The sandbox for a local match: bubblewrap unless asked otherwise; where bubblewrap
    cannot run here, local play falls back to ``none`` with a warning (tournaments never do)."""
    try:
        return make_sandbox(name)
    except SandboxError as error:
        if name != "bubblewrap":
            raise
        print(
            f"arena: WARNING: {error}\narena: WARNING: bots run WITHOUT a sandbox (--sandbox none): "
            "only play bots you trust",
            file=sys.stderr,
        )
        return NoSandbox()


def _display_names(specs: Sequence[str]) -> list[str]:
    """Short unique names: ``random``, ``my_bot``; repeated names get ``#2``, ``#3``."""
    base = [
        spec.removeprefix("builtin:") if spec.startswith("builtin:") else Path(spec).stem for spec in specs
    ]
    names = []
    for index, name in enumerate(base):
        count = base[:index].count(name)
        names.append(f"{name}#{count + 1}" if base.count(name) > 1 else name)
    return names


def _file_safe(name: str) -> str:
    return "".join(char if char.isalnum() or char in "-_" else "_" for char in name)


def results_table(record: MatchRecord, elapsed: float) -> str:
    rows = record.agent_summary()
    faults = [str(status) for status in Status if status is not Status.OK]
    header = f"{'seat':>4}  {'bot':<16} {'wins':>6} {'win%':>6} {'mean rank':>9}  {'ms/dec':>7}  statuses"
    lines = [header, "-" * len(header)]
    for row in rows:
        statuses = ", ".join(f"{name} {row['statuses'][name]}" for name in faults if row["statuses"][name])
        share = 100 * row["wins"] / max(row["games"], 1)
        lines.append(
            f"{row['agent']:>4}  {row['name']:<16} {row['wins']:>6} {share:>5.1f}%"
            f" {row['mean_rank']:>9.2f}  {row['mean_ms']:>7.3f}  {statuses or 'all ok'}"
        )
    decisions = record.decisions()
    lines.append(
        f"{len(record.games)} games, {decisions} decisions in {elapsed:.2f} s: "
        f"{decisions / elapsed:,.0f} decisions/s, {len(record.games) / elapsed:,.1f} games/s"
    )
    return "\n".join(lines)


def cmd_validate(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    artifact = store_submission(args.path, args.store, args.entry)
    print(f"stored: {artifact.folder} (sha256 {artifact.digest}, entry {artifact.entry})")
    report = validate_submission(artifact, game.name, make_sandbox("bubblewrap"))
    print("---- validation log ----")
    print(report.log.rstrip() or "(empty)")
    print("------------------------")
    print(f"validation {'PASSED' if report.passed else 'FAILED'}: {report.summary()}")
    return 0 if report.passed else 1


def cmd_rerun(args: argparse.Namespace) -> int:
    from arena import rerun

    plan = rerun.prepare(args.file, args.seat, args.bot, args.others, args.games)
    args.replays.mkdir(parents=True, exist_ok=True)
    name = _display_names([args.bot])[0]
    sandbox = choose_sandbox(args.sandbox)
    (record, outcomes), elapsed = _with_progress(
        args.quiet,
        plan.games,
        f"rerun {plan.game.name}",
        lambda on_game: rerun.play(plan, sandbox, name, on_game),
    )
    print(rerun.report(plan, outcomes, name))
    _save(record, list(record.names), elapsed, args.replays, None)
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


if __name__ == "__main__":
    sys.exit(main())
