"""The check's pinned situations: each pin still reaches its situation."""

from __future__ import annotations

import pytest

from arena.checks.check import CheckReport, CheckResult
from arena.checks.pins import pins_of, reaches
from arena.checks.situations import FAULT, situations_of
from arena.games.registry import all_games, get_game


@pytest.mark.parametrize("game", [game.name for game in all_games()])
def test_every_situation_has_a_pin_that_reaches_it(game: str) -> None:
    engine = get_game(game)
    assert situations_of(engine), "every game of the platform's is checked in some situations"
    assert [pin.situation for pin in pins_of(engine)] == [known.name for known in situations_of(engine)]
    for pin in pins_of(engine):
        assert reaches(engine, pin), pin


def test_a_pin_off_its_situation_does_not_reach_it() -> None:
    edible = get_game("edible")
    blind = next(pin for pin in pins_of(edible) if pin.situation.startswith("blind pick"))
    assert not reaches(edible, blind._replace(decision=blind.decision - 1))
    fault = next(pin for pin in pins_of(edible) if pin.situation == FAULT)
    assert reaches(edible, fault) and not reaches(edible, fault._replace(decision=10_000))


def test_the_report_says_each_situation_then_a_summary() -> None:
    report = CheckReport("edible", [CheckResult("a", True, ""), CheckResult("b", False, "why")], seconds=1.25)
    assert not report.passed
    assert report.lines() == [
        "pass  edible: a",
        "FAIL  edible: b: why",
        "edible: 2 situations, 1 failed (1.2 s)",
    ]
