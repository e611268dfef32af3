"""Live Elo: an incremental update as each result lands, for instant feedback between refits.

Provisional by design: it depends on the order of the results and has no error bars. The ladder of
record is the batch fit (``arena.ratings.fit``); after each refit, restart live ratings from it with
``LiveElo.from_ladder``. A game is scored pairwise between its units (tied units are not compared)
against the logistic expectation on the Elo scale; changes add up to zero.

Why, and the update in full: docs/ratings-model.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.ratings.model import ELO_MEAN, Ladder
from arena.ratings.results import Results

DEFAULT_K = 16.0


@dataclass
class LiveElo:
    """Live ratings by bot key (the bot version id, or the bot index when the ladder has no ids)."""

    ratings: dict[int, float] = field(default_factory=dict)
    k: float = DEFAULT_K
    start: float = ELO_MEAN
    """A bot not seen before starts here."""
    history: dict[int, list[tuple[int, float]]] | None = None
    """If not None, per bot: (results applied so far, rating after the result), for plots."""
    applied: int = 0
    """Results applied since the start (or since ``from_ladder``)."""

    @classmethod
    def from_ladder(cls, ladder: Ladder, k: float = DEFAULT_K, record: bool = False) -> LiveElo:
        """Start from a fitted ladder's Elo (bots with games), keyed by ``bot_ids`` if it has them."""
        keys = ladder.bot_ids.tolist() if ladder.bot_ids is not None else list(range(ladder.n_bots))
        ratings = {
            int(key): float(elo)
            for key, elo, games in zip(keys, ladder.elo.tolist(), ladder.games.tolist(), strict=True)
            if games > 0
        }
        history = {key: [(0, value)] for key, value in ratings.items()} if record else None
        return cls(ratings=ratings, k=k, history=history)

    def rating(self, bot: int) -> float:
        return self.ratings.get(bot, self.start)

    def apply(
        self, seats: Sequence[int], ranks: Sequence[int], teams: Sequence[int] | None = None
    ) -> dict[int, float]:
        """One game: the bot per seat, the competition rank per seat (0 best), and optionally a team
        label per seat. Updates the ratings; returns each bot's change."""
        if len(seats) != len(ranks) or (teams is not None and len(teams) != len(seats)):
            raise ValueError("seats, ranks and teams need one entry per seat")
        labels = list(range(len(seats))) if teams is None else list(teams)
        units: dict[int, list[int]] = {}
        unit_rank: dict[int, int] = {}
        for seat, label in enumerate(labels):
            units.setdefault(label, []).append(seats[seat])
            if unit_rank.setdefault(label, ranks[seat]) != ranks[seat]:
                raise ValueError("the seats of a team must share a rank")
        order = list(units)
        strength = {u: sum(self.rating(bot) - ELO_MEAN for bot in units[u]) for u in order}
        deltas: dict[int, float] = {}
        if len(order) > 1:
            scale = self.k / (len(order) - 1)
            for u in order:
                change = 0.0
                for v in order:
                    if v == u or unit_rank[u] == unit_rank[v]:
                        continue
                    expected = 1.0 / (1.0 + 10.0 ** ((strength[v] - strength[u]) / 400.0))
                    change += (1.0 if unit_rank[u] < unit_rank[v] else 0.0) - expected
                share = scale * change / len(units[u])
                for bot in units[u]:
                    deltas[bot] = deltas.get(bot, 0.0) + share
        self.applied += 1
        for bot in {bot for members in units.values() for bot in members}:
            self.ratings[bot] = self.rating(bot) + deltas.get(bot, 0.0)
            if self.history is not None:
                self.history.setdefault(bot, []).append((self.applied, self.ratings[bot]))
        return deltas

    def apply_results(self, results: Results) -> None:
        """Every game of ``results`` in order (bots keyed by ``results.bot_ids`` if given)."""
        ids = results.bot_ids.tolist() if results.bot_ids is not None else None
        for bots, ranks, teams in results.games():
            seats = [ids[b] for b in bots] if ids is not None else bots
            self.apply(seats, ranks, teams)
