"""How big a tournament the web app's users may ask for: the same bounds for the page's form and
the JSON API, checked before anything is built (no schedule, no row), so that a request for a
million rounds or a billion games per match is refused at once instead of holding the server's
memory and CPU. ``arena tournament create`` (the operator, on the store itself) is not bounded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import BadConfig, check_config_bounds
from arena.store.errors import StoreError

MAX_BOTS = 64
"""Bots in one tournament: a 2-seat round robin of 64 bots is 2016 matches a round."""
MAX_ROUNDS = 100
MAX_GAMES_PER_MATCH = 1000
MAX_MATCHES = 5000
"""Matches in one tournament, all rounds together."""
MAX_SEATS = 16
"""Seats per match asked for (each game has its own, smaller, maximum)."""
MAX_BOT_NAME = 72
"""``builtin:`` and a bot name of up to 64 characters."""
MAX_CONFIG_FIELDS = 16
MAX_SEED = 2**128 - 1
"""Seeds have ``arena.runner.deals.SEED_BITS`` bits."""
MAX_MATCH_DECISIONS = 1_000_000
"""Decisions one match may ask for: its games times the config's ``action_cap`` (every game of every
game stops there, a kozel series included). It bounds a match's time (some 0.5 ms a decision at
full speed: about 8 minutes) and its replay (some 50 bytes a decision: about 50 MB); a kozel match of
100,000-action games, 1,000 a match, would have run for about 13 hours."""


class LimitError(StoreError):
    """A tournament over one of the limits; the message names it."""


def check_request(
    bots: Sequence[str],
    games_per_match: int,
    rounds: int,
    seats: int | None,
    seed: int | None,
    config: Mapping[str, Any],
) -> None:
    """Raise ``LimitError`` naming the first limit the request is over (cheap: nothing is built)."""
    if len(bots) > MAX_BOTS:
        raise LimitError(f"a tournament has at most {MAX_BOTS} bots, not {len(bots)}")
    for name in bots:
        if not name or len(name) > MAX_BOT_NAME:
            raise LimitError(f"a bot name has 1 to {MAX_BOT_NAME} characters: {name[:MAX_BOT_NAME]!r}")
    if not 1 <= games_per_match <= MAX_GAMES_PER_MATCH:
        raise LimitError(f"games per match must be 1 to {MAX_GAMES_PER_MATCH}, not {games_per_match}")
    if not 1 <= rounds <= MAX_ROUNDS:
        raise LimitError(f"rounds must be 1 to {MAX_ROUNDS}, not {rounds}")
    if seats is not None and not 1 <= seats <= MAX_SEATS:
        raise LimitError(f"seats must be 1 to {MAX_SEATS}, not {seats}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise LimitError(f"a seed is a whole number from 0 to 2**128 - 1, not {seed}")
    if len(config) > MAX_CONFIG_FIELDS:
        raise LimitError(f"a config has at most {MAX_CONFIG_FIELDS} fields")
    try:
        check_config_bounds(config)
    except BadConfig as error:
        raise LimitError(str(error)) from None


def check_match_size(games_per_match: int, action_cap: int) -> None:
    """Raise ``LimitError`` if a match of ``games_per_match`` games, each stopped after
    ``action_cap`` actions, may ask for more than ``MAX_MATCH_DECISIONS`` decisions."""
    decisions = games_per_match * action_cap
    if decisions > MAX_MATCH_DECISIONS:
        raise LimitError(
            f"a match may ask for at most {MAX_MATCH_DECISIONS:,} decisions: {games_per_match} games "
            f"of up to {action_cap:,} actions (the config's action_cap) is {decisions:,}; "
            "fewer games per match, or a lower action_cap"
        )


def check_matches(per_round: int, rounds: int) -> None:
    """Raise ``LimitError`` if ``rounds`` rounds of ``per_round`` matches are over ``MAX_MATCHES``."""
    if per_round * rounds > MAX_MATCHES:
        raise LimitError(
            f"{rounds} round(s) of {per_round} matches is over the limit of {MAX_MATCHES} matches "
            "a tournament: fewer bots or fewer rounds"
        )
