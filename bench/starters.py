"""Starter kits against a Python bot: ``python bench/starters.py`` (``--quick``, ``--sandbox none``).

Builds the Node.js and Go starter kits (exit status 1 if a toolchain is missing), then plays, in
rounds, one match per game with each kit's bot and a Python bot under test against
``builtin:random``, in the bubblewrap sandbox (or none). It prints, for the bot under test, the time
per decision, that time over the Python bot's, the start-up and the match's wall time (medians over
rounds), and the floor: a bare gRPC round trip measured in the same rounds.

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from run import _rounds, bare_round_trip, sample_request  # noqa: E402
from startup import wait_for_pool  # noqa: E402

from arena import loop  # noqa: E402
from arena.games.base import Game  # noqa: E402
from arena.games.registry import get_game  # noqa: E402
from arena.runner.match import MatchRunner  # noqa: E402
from arena.runner.records import MatchRecord  # noqa: E402
from arena.runner.terms import Agent, MatchSetup, Reply, Status  # noqa: E402
from arena.sandbox import Sandbox, SandboxError  # noqa: E402
from arena.sandbox.backends import make_sandbox  # noqa: E402
from arena.sandbox.bubblewrap import BubblewrapSandbox  # noqa: E402
from arena.transport.process import play_match  # noqa: E402

OPPONENT = "builtin:random"
KITS = ("node", "go")
BOTS = (*KITS, "python")


@dataclass(frozen=True)
class Setting:
    game: str
    seats: int
    under_test: tuple[int, ...]
    """The seats (agents) the bot under test plays; ``builtin:random`` plays the others."""
    games: int
    """Games per match in a full run."""


SETTINGS = (
    Setting("edible", 2, (0,), 40),
    Setting("believe", 3, (0,), 12),
    Setting("kozel", 4, (0, 2), 8),
)


@dataclass
class Figures:
    """One (game, bot)'s figures, one entry per round."""

    per_decision_us: list[float] = field(default_factory=list)
    startup_ms: list[float] = field(default_factory=list)
    match_s: list[float] = field(default_factory=list)


def build_kits(folder: Path) -> dict[str, str]:
    """Build both starter kits into ``folder``; the bot spec (a folder) of each, by kit name."""
    specs: dict[str, str] = {}
    for kit in KITS:
        out = folder / kit
        script = ROOT / "sdk" / "starters" / kit / "build.sh"
        started = time.perf_counter()
        done = subprocess.run(["bash", str(script), str(out)], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(done.stdout + done.stderr, file=sys.stderr, end="")
            raise SystemExit(
                f"bench/starters.py: the {kit} starter kit did not build (exit status "
                f"{done.returncode}); is its toolchain installed? See sdk/starters/{kit}/README.md"
            )
        print(f"built the {kit} starter in {time.perf_counter() - started:.1f} s: {out}")
        specs[kit] = str(out)
    return specs


def timing_start_up(startups: dict[int, float]) -> Callable[..., MatchRunner]:
    """A ``play_match`` runner that writes each agent's start-up (seconds) into ``startups``."""

    def make(game: Game[Any, Any, Any], config: Any, agents: list[Agent], **options: Any) -> MatchRunner:
        for index, agent in enumerate(agents):
            start_match = agent.start_match

            async def timed(
                setup: MatchSetup, agent_index: int, _start: Any = start_match, _index: int = index
            ) -> Reply:
                started = time.perf_counter()
                reply: Reply = await _start(setup, agent_index)
                startups[_index] = time.perf_counter() - started
                return reply

            agent.start_match = timed  # type: ignore[method-assign]
        return MatchRunner(game, config, agents, **options)

    return make


def check_ok(record: MatchRecord, agents: tuple[int, ...], bot: str) -> None:
    """Stop if the bot under test faulted: its figures would not be a clean match's."""
    for agent in agents:
        row = record.agent_summary()[agent]
        if row["statuses"][str(Status.OK)] != row["games"]:
            log = record.logs[agent][-2000:]
            statuses = row["statuses"]
            raise SystemExit(f"bench/starters.py: {bot} did not play every game ok: {statuses}\n{log}")


async def one_match(
    setting: Setting, spec: str, sandbox: Sandbox, games: int, seed: int
) -> tuple[float, ...]:
    """Plays one match; the bot under test's us per decision, start-up ms, and the match's s."""
    game = get_game(setting.game)
    specs = [spec if seat in setting.under_test else OPPONENT for seat in range(setting.seats)]
    startups: dict[int, float] = {}
    started = time.perf_counter()
    record = await play_match(
        game, game.config_type(), specs, sandbox, games=games, seed=seed, runner=timing_start_up(startups)
    )
    match_s = time.perf_counter() - started
    check_ok(record, setting.under_test, spec)
    rows = [record.agent_summary()[agent] for agent in setting.under_test]
    decisions = sum(row["decisions"] for row in rows)
    think_ms = sum(row["mean_ms"] * row["decisions"] for row in rows)
    startup_ms = statistics.mean(startups[agent] for agent in setting.under_test) * 1000
    return think_ms / decisions * 1000, startup_ms, match_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games and rounds (about a minute)")
    parser.add_argument("--sandbox", choices=["bubblewrap", "none"], default="bubblewrap")
    parser.add_argument("--rounds", type=int, help="rounds (default 11, --quick 3)")
    args = parser.parse_args()
    rounds = args.rounds or (3 if args.quick else 11)
    scale = 0.5 if args.quick else 1.0
    trips = 1000 if args.quick else 2000
    try:
        sandbox = make_sandbox(args.sandbox)
    except SandboxError as error:
        raise SystemExit(f"bench/starters.py: {error} (or run with --sandbox none)") from error
    warm = isinstance(sandbox, BubblewrapSandbox) and sandbox.warm
    where = "no sandbox" if args.sandbox == "none" else "the bubblewrap sandbox"
    print(f"Starter kits against a Python bot, in {where}, {rounds} rounds")
    with tempfile.TemporaryDirectory(prefix="arena-starters-") as folder:
        specs = {**build_kits(Path(folder)), "python": OPPONENT}
        figures = {(setting.game, bot): Figures() for setting in SETTINGS for bot in BOTS}
        floors: dict[str, list[float]] = {setting.game: [] for setting in SETTINGS}
        requests = {
            setting.game: sample_request(get_game(setting.game), setting.seats) for setting in SETTINGS
        }
        started = time.perf_counter()
        # A warm-up, not counted: caches filled, and the warm pool taught the most seats at once.
        for setting in SETTINGS:
            for bot in BOTS:
                loop.run(one_match(setting, specs[bot], sandbox, 1, seed=rounds))
        most_seats = max(setting.seats for setting in SETTINGS)
        for round_index in range(rounds):
            order = BOTS[round_index % len(BOTS) :] + BOTS[: round_index % len(BOTS)]
            for setting in SETTINGS:
                floors[setting.game].append(loop.run(bare_round_trip(requests[setting.game], trips)))
                games = max(2, round(setting.games * scale))
                for bot in order:
                    if warm:
                        wait_for_pool(most_seats)
                    result = loop.run(one_match(setting, specs[bot], sandbox, games, seed=round_index))
                    entry = figures[(setting.game, bot)]
                    entry.per_decision_us.append(result[0])
                    entry.startup_ms.append(result[1])
                    entry.match_s.append(result[2])
            print(f"  round {round_index + 1}/{rounds} done, {time.perf_counter() - started:.0f} s")
    for setting in SETTINGS:
        report(setting, figures, floors[setting.game], requests[setting.game].ByteSize(), scale)


def report(
    setting: Setting, figures: dict[tuple[str, str], Figures], floors: list[float], size: int, scale: float
) -> None:
    where = "seat 0" if setting.under_test == (0,) else "seats " + " and ".join(map(str, setting.under_test))
    games = max(2, round(setting.games * scale))
    print(
        f"\n== {setting.game}, {setting.seats} seats: the bot under test on {where}, "
        f"{OPPONENT} elsewhere; {games} games a match"
    )
    python = statistics.median(figures[(setting.game, "python")].per_decision_us)
    floor = statistics.median(floors)
    print(f"{'bot':<8}{'us/decision':>12}{'vs python':>11}{'x floor':>9}{'start-up ms':>13}{'match s':>9}")
    for bot in BOTS:
        entry = figures[(setting.game, bot)]
        us = statistics.median(entry.per_decision_us)
        print(
            f"{bot:<8}{us:>12.0f}{us / python:>10.2f}x{us / floor:>8.2f}x"
            f"{statistics.median(entry.startup_ms):>13.0f}{statistics.median(entry.match_s):>9.2f}"
            f"   us/decision {_rounds(entry.per_decision_us)}"
        )
    print(f"bare gRPC round trip (floor, {size} B request): {floor:.0f} us {_rounds(floors)}")


if __name__ == "__main__":
    main()
