"""How a match's games are seeded and seated: seeds, duplicate deals and their legs, the carried dealer.

Seeds nobody chose come from the OS, and the seeds derived from them are one-way. Every game's seed
derives from the match seed and the game's deal alone, so any game replays by itself
(``arena.runner.replay``); a game that carries the deal over to the next takes its dealer from its
leg's previous result as well (``carried_dealer``).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import Any

from arena.games.base import Game, GameResult

SEED_BITS = 128
"""Bits of a seed nobody chose, and of every seed derived from one: too many to search."""
LEGACY_SEED_BITS = 63
"""Derived seeds of replays written before seeds had ``SEED_BITS`` (replay schema 1)."""


def new_seed() -> int:
    """A match or tournament seed that nobody chose: ``SEED_BITS`` bits from the OS's CSPRNG."""
    return secrets.randbits(SEED_BITS)


def derive_seed(seed: int, *parts: object, bits: int = SEED_BITS) -> int:
    """A ``bits``-bit seed from ``seed`` and labels, one-way: knowing it tells nothing about ``seed``."""
    digest = hashlib.sha256(":".join(map(str, (seed, *parts))).encode()).digest()
    return int.from_bytes(digest, "big") >> (256 - bits)


def deal_index(game_index: int, agents: int, duplicate: bool) -> int:
    """Which deal a game plays: its own, or with duplicate deals the same deal for ``agents``
    games in a row, so that every rotation of the seats meets the same cards and luck cancels."""
    return game_index // agents if duplicate else game_index


def game_seed(seed: int, game_index: int, agents: int, duplicate: bool, bits: int = SEED_BITS) -> int:
    return derive_seed(seed, "game", deal_index(game_index, agents, duplicate), bits=bits)


def legs(games: int, agents: int, duplicate: bool) -> list[list[int]]:
    """The match's games by leg: one leg of every game, or with duplicate deals one leg per seat
    rotation (its games play every deal once, each in the same rotation), each leg played by
    fresh bot processes so that none sees a deal twice."""
    if not duplicate:
        return [list(range(games))]
    return [list(range(rotation, games, agents)) for rotation in range(min(agents, games))]


def previous_game(game_index: int, agents: int, duplicate: bool) -> int | None:
    """The game played just before ``game_index`` in its leg (see ``legs``), or None for a leg's
    first game."""
    before = game_index - (agents if duplicate else 1)
    return before if before >= 0 else None


def carried_dealer(
    game: Game[Any, Any, Any], seating: Sequence[int], before: Sequence[int], result: GameResult
) -> int | None:
    """The dealer of a game seated ``seating`` whose leg's previous game (``previous_game``) was
    seated ``before`` and ended with ``result`` (after forfeits): the seat of the bot that game
    named (``Game.next_dealer``), wherever the rotation now puts it; None in a game that carries
    no deal over."""
    seat = game.next_dealer(result)
    return None if seat is None else list(seating).index(before[seat])


def seating_for(game_index: int, agents: int, rotate: bool) -> tuple[int, ...]:
    """Which agent sits at each seat in a game: rotated one seat per game if ``rotate``."""
    shift = game_index % agents if rotate else 0
    return tuple((seat - shift) % agents for seat in range(agents))
