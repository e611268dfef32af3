"""``arena bot check``: a bot process, in the real bubblewrap sandbox, through every situation of
its game; a correct bot passes them all, and each broken bot fails exactly where it is broken."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sandboxed import bubblewrap, no_bot_process_outlives_a_match

from arena.checks import CheckReport, run_checks
from arena.checks.situations import DEADLINE, FAULT, situations_of
from arena.games.registry import get_game
from arena.runner.deals import derive_seed
from arena.sandbox.base import BotProgram

# Run alone, after the parallel tests (deploy/test.sh): a bot answers near its deadline.
pytestmark = pytest.mark.serial

__all__ = ["no_bot_process_outlives_a_match"]  # autouse: no bot process outlives a check

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"


def situation_names(game: str) -> list[str]:
    return [known.name for known in situations_of(get_game(game))]


def check(game: str, program: BotProgram) -> CheckReport:
    report = run_checks(program, game, bubblewrap())
    assert [result.situation for result in report.results] == [
        known.name for known in situations_of(get_game(game))
    ]
    return report


def failures(report: CheckReport) -> dict[str, str]:
    return {result.situation: result.detail for result in report.results if not result.passed}


@pytest.mark.parametrize(
    ("game", "program"),
    [
        ("edible", BotProgram.from_spec("edible", str(ROOT / "sdk" / "examples" / "edible_starter.py"))),
        ("edible", BotProgram("edible", builtin="heuristic")),
        ("believe", BotProgram("believe", builtin="random")),
        ("believe", BotProgram("believe", builtin="caller")),
        ("kozel", BotProgram("kozel", builtin="random")),
        ("kozel", BotProgram("kozel", builtin="heuristic")),
    ],
)
def test_a_correct_bot_passes_every_situation(game: str, program: BotProgram) -> None:
    report = check(game, program)
    assert failures(report) == {}, report.log
    assert report.passed and report.results
    assert report.lines()[-1].startswith(f"{game}: {len(situation_names(game))} situations, all passed")


@pytest.mark.parametrize(
    ("game", "bot", "situation", "detail"),
    [
        (
            "edible",
            "blind_misser.py",
            "blind pick of the challenger's card",
            "decision 8 (seat 1): illegal_action: PickBlind(position=4): PickBlind(position=4): "
            "pick a position 0..3 of the challenger's cards",
        ),
        (
            "believe",
            "empty_hand_placer.py",
            "call with no cards left (only calls are legal)",
            "decision 218 (seat 2): illegal_action: Place(cards=(0,), claim=6): Place(cards=(0,), "
            "claim=6): you hold no cards: believe or disbelieve",
        ),
        (
            "kozel",
            "molodka_leader.py",
            "molodka window",
            "decision 98 (seat 2): illegal_action: Lead(cards=('7S',)): Lead(cards=('7S',)): "
            "seat 2 is asked about a molodka: declare it (Molodka) or Decline",
        ),
        (
            "edible",
            "fault_quitter.py",
            FAULT,
            "after the fault, seed 1, 3 seats, decision 3 (seat 0): "
            "crash: the bot process exited with code 1",
        ),
        ("kozel", "slow.py", DEADLINE, "decision 8 (seat 3): timeout: no answer within 1000 ms"),
    ],
)
def test_a_broken_bot_fails_exactly_where_it_is_broken(
    game: str, bot: str, situation: str, detail: str
) -> None:
    report = check(game, BotProgram.from_spec(game, str(BOTS / bot)))
    assert not report.passed
    assert list(failures(report)) == [situation], report.log
    assert failures(report)[situation].endswith(detail)
    line = next(line for line in report.lines() if line.startswith("FAIL"))
    assert line == f"FAIL  {game}: {situation}: {failures(report)[situation]}"
    assert report.lines()[-1].startswith(f"{game}: {len(situation_names(game))} situations, 1 failed")


def test_a_bot_that_dies_is_started_afresh_for_the_situations_after(tmp_path: Path) -> None:
    """The exiter dies on every process's third decision: each death fails one situation, and the
    situations after it are still checked, by a fresh process."""
    report = check("edible", BotProgram.from_spec("edible", str(BOTS / "exiter.py")))
    failed = failures(report)
    # Each process dies at the third decision it is asked (the fault check asks three).
    assert list(failed) == [
        "add a card or open the auction",
        "blind pick of the challenger's card",
        DEADLINE,
        FAULT,
    ], report.log
    assert all("crash: the bot process exited with code 1" in detail for detail in failed.values())
    assert "exiter bot quits mid-game" in report.log


def test_the_checks_draw_the_bots_seed_afresh() -> None:
    """Before: every check leg seeded the bot with ``derive_seed(seats, "check")``, one public number
    a bot could compare its ``bot_seed`` with to know it was checked."""
    program = BotProgram.from_spec("edible", str(BOTS / "ladder_spotter.py"))
    told = [
        {
            (leg["seats"], leg["bot_seed"])
            for leg in map(json.loads, re.findall(r"^INFO (.*)$", report.log, re.M))
        }
        for report in (check("edible", program), check("edible", program))
    ]
    assert [len(seeds) for seeds in told] == [2, 2]  # a leg of 3 seats and one of 6
    fixed = {(seats, derive_seed(seats, "check", bits=63)) for seats in (3, 6)}
    assert not told[0] & told[1] and not (told[0] | told[1]) & fixed
