"""How big a tournament the web app's users may ask for, and how long a user's match may run.

The same bounds serve the page's form and the JSON API, checked before anything is built (no
schedule, no row), so that a request for a million rounds or a billion games per match is refused at
once instead of holding the server's memory and CPU. ``arena tournament create`` (the operator, on
the store itself) is not bounded.

A user's match is bounded where it is played too (``arena.tournament.play.run_match``): in wall time
(``MAX_MATCH_WALL_S``) and in replay bytes (``MAX_MATCH_REPLAY_BYTES``). One over either is stopped
there: its bots are closed, its worker takes the next match, and it is recorded as
``failed_infrastructure`` with the cap it passed as its reason: no result, no rating, counted
against no bot, not played again by itself (it would pass its cap again).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import BadConfig, check_config_bounds
from arena.runner.replay import MAX_REPLAY_BYTES
from arena.store.errors import StoreError

MAX_BOTS = 64
"""Bots in one tournament: a 2-seat round robin of 64 bots is 2016 matches a round."""
MAX_ROUNDS = 100
MAX_GAMES_PER_MATCH = 1000
MAX_MATCHES = 5000
"""Matches in one tournament, all rounds together."""
MAX_SEATS = 16
"""Seats per match asked for (each game has its own, smaller, maximum)."""
MAX_TEST_GAMES = 20_000
"""The most games an A/B test may be allowed (its ``max_games``)."""
DEFAULT_TEST_GAMES = 4_000
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
MAX_MATCH_WALL_S = 1800.0
"""The longest a user's match may play, start-up included: 30 minutes (``MAX_MATCH_DECISIONS`` by
sandboxed bots at a millisecond a decision is some 15 to 20). The bots' clocks alone would allow far
more (a second a decision, a million decisions: days). A match still playing at its cap is stopped
(see above). ``ARENA_MATCH_WALL_S`` in a worker's environment sets another cap (seconds)."""
MAX_MATCH_REPLAY_BYTES = MAX_REPLAY_BYTES
"""The most a match's replay may hold, uncompressed (128 MiB: what ``arena replay`` reads). Its
games are counted as they end (``arena.runner.replay.ReplaySpool``), and the match is stopped at
the game that would pass it. ``MAX_MATCH_DECISIONS`` keeps a played match well under it: 50 to 70
bytes a decision, some 70 MB at most."""
WALL_ENV = "ARENA_MATCH_WALL_S"


class LimitError(StoreError):
    """A tournament over one of the limits; the message names it."""


class OverWallCap(Exception):
    """A match played past its wall-time cap (``match_wall_s``) and was stopped; the message names it."""


def match_wall_s() -> float:
    """A user's match's wall-time cap in seconds: ``ARENA_MATCH_WALL_S`` if set (a positive number),
    else ``MAX_MATCH_WALL_S``."""
    text = os.environ.get(WALL_ENV, "").strip()
    if not text:
        return MAX_MATCH_WALL_S
    try:
        seconds = float(text)
    except ValueError:
        raise LimitError(f"{WALL_ENV}={text!r} is not a number of seconds") from None
    if not 0 < seconds < float("inf"):
        raise LimitError(f"{WALL_ENV}={text!r}: the cap is a positive number of seconds")
    return seconds


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
