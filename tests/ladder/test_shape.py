"""A ladder match's shape and seating, shared by the scheduler and validation (``arena.ladder.shape``)."""

from __future__ import annotations

import random
from collections import Counter

from arena.ladder.shape import LADDER_GAMES, Shape, draw_seating, shape_for, shapes


def test_every_shape_a_ladder_takes_tells_a_bot_process_three_four_or_six_games() -> None:
    assert shapes("edible") == (Shape(sides=3), Shape(sides=4))  # two built-ins and one bot or more
    assert shapes("believe") == (Shape(sides=4),)  # three built-ins
    assert shapes("kozel") == (Shape(sides=2, team_seats=2),)
    assert shape_for("edible", 40) == Shape(sides=4) and shape_for("believe", 2) == Shape(sides=2)
    assert {shape.leg_games for game in ("edible", "believe", "kozel") for shape in shapes(game)} == {3, 4}
    assert all(shape.leg_games * shape.seats == LADDER_GAMES for shape in shapes("edible"))


def test_a_drawn_seating_puts_the_bot_at_any_seat_and_a_kozel_bot_in_both_of_its_sides_seats() -> None:
    """Before: validation always sat the bot at seat 0 (MatchStart.seat), which a ladder leg rarely does."""
    rng = random.Random(34)
    seats: Counter[int] = Counter()
    for _ in range(400):
        seating = draw_seating(Shape(sides=4), "bot", ["random", "heuristic"], rng)
        assert seating.count("bot") == 1 and {"random", "heuristic"} <= set(seating)
        seats[seating.index("bot")] += 1
    assert sorted(seats) == [0, 1, 2, 3] and min(seats.values()) > 70  # 100 each expected, sd 8.7
    kozel = {draw_seating(Shape(sides=2, team_seats=2), "bot", ["random"], rng) for _ in range(40)}
    assert kozel == {("bot", "random", "bot", "random"), ("random", "bot", "random", "bot")}
