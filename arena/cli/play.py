"""``arena play``: a match between bots on this machine, with its replay, logs and results table."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

from arena import loop
from arena.bots import check_spec, is_builtin, load_bot
from arena.cli.args import parse_config
from arena.games.base import Game, GameConfig
from arena.games.registry import get_game
from arena.runner import replay
from arena.runner.deals import new_seed
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner, ProgressCallback
from arena.runner.progress import ProgressBar
from arena.runner.records import GameRecord, MatchRecord
from arena.runner.terms import FaultPolicy, Limits, Status
from arena.sandbox import BotProgram, NoSandbox, Sandbox, SandboxError
from arena.sandbox.backends import make_sandbox
from arena.submissions import read_submission
from arena.text import escape_controls
from arena.transport.process import play_match

T = TypeVar("T")


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
    names = display_names(args.bots)
    record, elapsed = with_progress(
        args.quiet,
        args.games,
        f"{game.name} {len(args.bots)} seats",
        lambda on_game: _run(game, config, args, names, limits, policy, on_game),
    )
    save(record, names, elapsed, args.replays, args.logs)
    return 0


def with_progress(
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


def save(record: MatchRecord, names: Sequence[str], elapsed: float, replays: Path, logs: Path | None) -> None:
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
        agents = [
            InProcessAgent(load_bot(game.name, spec), name)
            for spec, name in zip(args.bots, names, strict=True)
        ]
        return await MatchRunner(game, config, agents, specs=args.bots, **common).run(on_game)
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


def display_names(specs: Sequence[str]) -> list[str]:
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
