"""What the ladder fit reads: the finish orders of many games (``Results``), as flat arrays by bot.

It also holds the error raised for results that cannot be fitted. ``arena.ratings.load`` fills
``Results`` from the store, ``arena.ratings.simulate`` from known strengths; ``arena.ratings.fit``
fits them. numpy only: no model, no database here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class RatingsError(ValueError):
    """Results that cannot be fitted: malformed arrays, bad ranks or teams."""


@dataclass(frozen=True, eq=False)
class Results:
    """Finish orders of many games, flat (CSR-like).

    Game ``g`` has seats ``offsets[g]:offsets[g + 1]`` of ``bots`` (bot index, ``0 <= b < n_bots``)
    and ``ranks`` (competition ranks: 0 best, tied seats share a rank). ``teams`` (optional) labels
    each seat's team within its game (``0 <= label < seats``); seats with the same label form one unit
    and must share a rank. Without ``teams`` every seat is its own unit (free-for-all).
    ``clusters`` (optional) labels each game; games with the same label are correlated (the same match
    and deal) and get the cluster-robust correction. ``bot_ids`` (optional) maps bot index to an
    outside id (the store's bot version id)."""

    offsets: IntArray
    bots: IntArray
    ranks: IntArray
    teams: IntArray | None = None
    clusters: IntArray | None = None
    bot_ids: IntArray | None = None

    @property
    def n_games(self) -> int:
        return len(self.offsets) - 1

    @property
    def n_bots(self) -> int:
        """``len(bot_ids)`` if given, else one more than the largest bot index."""
        if self.bot_ids is not None:
            return len(self.bot_ids)
        return int(self.bots.max()) + 1 if len(self.bots) else 0

    @classmethod
    def from_games(
        cls,
        seats: Iterable[Sequence[int]],
        ranks: Iterable[Sequence[int]],
        teams: Iterable[Sequence[int]] | None = None,
        clusters: Sequence[int] | IntArray | None = None,
        bot_ids: Sequence[int] | IntArray | None = None,
    ) -> Results:
        """From per-game lists: ``seats[g]`` bot indexes, ``ranks[g]`` their ranks, ``teams[g]``."""
        seat_lists = [list(game) for game in seats]
        rank_lists = [list(game) for game in ranks]
        sizes = np.array([len(game) for game in seat_lists], dtype=np.int64)
        offsets = np.concatenate([np.zeros(1, np.int64), np.cumsum(sizes)])
        flat = np.array([b for game in seat_lists for b in game], dtype=np.int64)
        flat_ranks = np.array([r for game in rank_lists for r in game], dtype=np.int64)
        flat_teams = None
        if teams is not None:
            flat_teams = np.array([t for game in teams for t in game], dtype=np.int64)
        return cls(
            offsets=offsets,
            bots=flat,
            ranks=flat_ranks,
            teams=flat_teams,
            clusters=None if clusters is None else np.asarray(clusters, dtype=np.int64),
            bot_ids=None if bot_ids is None else np.asarray(bot_ids, dtype=np.int64),
        )

    def games(self) -> Iterable[tuple[list[int], list[int], list[int] | None]]:
        """Per game: (bots, ranks, teams or None), in order. Slow; for small data and tests."""
        for g in range(self.n_games):
            lo, hi = int(self.offsets[g]), int(self.offsets[g + 1])
            teams = None if self.teams is None else self.teams[lo:hi].tolist()
            yield self.bots[lo:hi].tolist(), self.ranks[lo:hi].tolist(), teams

    def take(self, games: npt.ArrayLike) -> Results:
        """The games at the given indexes, in that order (a subset or a permutation)."""
        index = np.asarray(games, dtype=np.int64)
        sizes = np.diff(self.offsets)[index]
        offsets = np.concatenate([np.zeros(1, np.int64), np.cumsum(sizes)])
        seat = np.repeat(self.offsets[:-1][index] - offsets[:-1], sizes) + np.arange(offsets[-1])
        return Results(
            offsets=offsets,
            bots=self.bots[seat],
            ranks=self.ranks[seat],
            teams=None if self.teams is None else self.teams[seat],
            clusters=None if self.clusters is None else self.clusters[index],
            bot_ids=self.bot_ids,
        )

    def concat(self, other: Results) -> Results:
        """These games, then ``other``'s (same bot indexing; cluster labels are kept as they are)."""
        if (self.teams is None) != (other.teams is None) and self.n_games and other.n_games:
            raise RatingsError("cannot mix results with and without teams")
        teams = None
        if self.teams is not None or other.teams is not None:
            teams = np.concatenate([_seat_teams(self), _seat_teams(other)])
        clusters = None
        if self.clusters is not None or other.clusters is not None:
            clusters = np.concatenate([_game_clusters(self, 0), _game_clusters(other, self.n_games)])
        return Results(
            offsets=np.concatenate([self.offsets, other.offsets[1:] + self.offsets[-1]]),
            bots=np.concatenate([self.bots, other.bots]),
            ranks=np.concatenate([self.ranks, other.ranks]),
            teams=teams,
            clusters=clusters,
            bot_ids=self.bot_ids if self.bot_ids is not None else other.bot_ids,
        )


def _seat_teams(results: Results) -> IntArray:
    if results.teams is not None:
        return results.teams
    game = np.repeat(np.arange(results.n_games), np.diff(results.offsets))
    return np.arange(len(results.bots), dtype=np.int64) - results.offsets[game]


def _game_clusters(results: Results, first: int) -> IntArray:
    """Cluster labels, or a fresh label per game (offset so they stay apart when concatenated)."""
    if results.clusters is not None:
        return results.clusters
    return -1 - first - np.arange(results.n_games, dtype=np.int64)
