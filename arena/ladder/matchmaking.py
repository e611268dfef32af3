"""Matchmaking for the living ladder: which bots play the next ladder match, and in which seats.

Pure: no database, no I/O; the only randomness is the ``random.Random`` the caller passes. The caller
gives each pick the entrants (``Entrant``), their ratings (``Ratings``, from ``ratings_from_ladder``)
and the fairness state the previous pick returned (``Fairness()`` the first time). ``Matchmaker.pick``
returns the match (``Pick.entrants`` in starting seat order), its focus and the next fairness state;
``Matchmaker.queue`` the order in which entrants would next be the focus; ``Matchmaker.pick_random``
the baseline of uniformly random bots. A pick serves the least served owner first, seats one bot an
owner while others have one free, and picks opponents by information, a quarter at random.

How a pick goes, its guarantees, and the figures: docs/matchmaking.md.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.linalg import blas  # type: ignore[import-untyped]

from arena.ratings.model import DEFAULT_PRIOR_GAMES, Ladder
from arena.ratings.results import BoolArray, FloatArray, IntArray
from arena.ratings.threads import one_blas_thread

Owner = int | None
"""A user id, or None for the platform's built-in bots (one owner)."""

EXPLORE = 0.25
"""The share of opponents drawn regardless of the ratings (docs/matchmaking.md)."""

RANK_DRAW = 2.0
"""The ranking's draw, in the ratings' errors (docs/matchmaking.md)."""

NEEDS_LINK, NEEDS_GAMES, SETTLED = 0, 1, 2
"""How much a bot needs games, most first: not linked to the main pool; provisional with fewer than
``settle_games`` games; neither."""


@dataclass(frozen=True)
class Entrant:
    """A bot that may play a ladder match now."""

    key: int
    """The bot version id."""
    owner: Owner
    in_play: int = 0
    """Ladder matches of this bot in play now."""


@dataclass(frozen=True, eq=False)
class Ratings:
    """The ladder as matchmaking reads it, per key. The default is an empty ladder (every entrant at
    the prior)."""

    keys: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    mean: FloatArray = field(default_factory=lambda: np.zeros(0))
    """Mean log-strength, nats."""
    covariance: FloatArray = field(default_factory=lambda: np.zeros((0, 0)))
    """Covariance of the log-strengths, nats squared."""
    component: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Connected component (``arena.ratings.connect``): 0 is the main pool."""
    provisional: BoolArray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    games: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    prior_variance: float = 4.0 / DEFAULT_PRIOR_GAMES
    """Variance of a bot with no games: the prior's (``prior_games / 4`` games' worth of information)."""

    def __post_init__(self) -> None:
        n = len(self.keys)
        sizes = (len(self.mean), len(self.component), len(self.provisional), len(self.games))
        if sizes != (n,) * 4 or self.covariance.shape != (n, n):
            raise ValueError(f"ratings of {n} keys need one mean, component, flag and count per key")

    @cached_property
    def index(self) -> dict[int, int]:
        """Position of each key."""
        return {int(key): i for i, key in enumerate(self.keys.tolist())}


def ratings_from_ladder(ladder: Ladder, component: IntArray) -> Ratings:
    """The ratings of a fitted ladder, by its ``bot_ids`` (by bot index if it has none), with each
    bot's ``component`` (``arena.ratings.connect.components`` of the results the ladder fitted). The
    covariance is built with BLAS on this thread only (at a load of 8 on 2 cores, OpenBLAS's worker
    threads made its 95th percentile 100 times slower: 17 ms for 100 bots)."""
    n = ladder.n_bots
    keys = np.arange(n, dtype=np.int64) if ladder.bot_ids is None else ladder.bot_ids
    prior = 4.0 / (ladder.prior_games if ladder.prior_games > 0 else DEFAULT_PRIOR_GAMES)
    with one_blas_thread():
        covariance = ladder.covariance
    return Ratings(
        keys=keys,
        mean=ladder.theta,
        covariance=covariance,
        component=component,
        provisional=ladder.provisional,
        games=ladder.games,
        prior_variance=prior,
    )


@dataclass(frozen=True)
class OwnerState:
    """What fairness remembers of an owner."""

    service: int = 0
    """Charges for the matches that seated its bots (docs/matchmaking.md)."""
    matches: int = 0
    """Picks that seated its bots."""
    last_match: int = -1
    """The last of them (``Fairness.picks`` before it); -1: none yet."""


@dataclass(frozen=True)
class Fairness:
    """What the caller keeps between picks: the state ``Matchmaker.pick`` returns in ``Pick.fairness``.
    It holds only the owners and bots among the last pick's entrants; never mutated."""

    picks: int = 0
    """Picks made so far."""
    level: int = 0
    """The least service among the owners with a bot free to play, as of the last pick."""
    owners: Mapping[Owner, OwnerState] = field(default_factory=dict)
    last_played: Mapping[int, int] = field(default_factory=dict)
    """Per bot key, the pick in which it last played."""


@dataclass(frozen=True)
class Pick:
    entrants: tuple[int, ...]
    """Bot keys in starting seat order (a team's bot in every one of its side's seats)."""
    focus: int
    """The key of the bot the match was picked for."""
    fairness: Fairness
    """The state to pass to the next pick."""


@dataclass(frozen=True, eq=False)
class _Field:
    """The entrants of one pick, by position, with what the ratings say of each."""

    keys: list[int]
    owners: list[Owner]
    mean: FloatArray
    covariance: FloatArray
    connected: BoolArray
    need: IntArray
    games: IntArray
    free: BoolArray
    members: dict[Owner, list[int]]
    """Every owner's bots."""
    free_members: dict[Owner, list[int]]
    """The free bots of every owner that has one."""
    needy: dict[Owner, bool]
    """Whether any of an owner's bots needs games."""
    free_need: dict[Owner, int]
    """How much the free bots of every owner that has one need games (the neediest's)."""
    in_play: dict[Owner, int]
    """Every owner's matches in play (counted per bot)."""

    @property
    def free_sides(self) -> int:
        """How many bots of distinct owners are free (each built-in bot counts: see ``Matchmaker``)."""
        return sum(len(bots) if owner is None else 1 for owner, bots in self.free_members.items())


_UNSEEN = OwnerState()


@dataclass
class _Tally:
    """A ``Fairness`` being worked on."""

    picks: int
    level: int
    owners: dict[Owner, OwnerState]
    last_played: dict[int, int]

    @classmethod
    def of(cls, fairness: Fairness) -> _Tally:
        return cls(fairness.picks, fairness.level, dict(fairness.owners), dict(fairness.last_played))

    def owner(self, owner: Owner) -> OwnerState:
        return self.owners.get(owner, _UNSEEN)

    def service(self, owner: Owner) -> int:
        """The owner's service, raised to the level."""
        return max(self.owner(owner).service, self.level)

    def last(self, key: int) -> int:
        return self.last_played.get(key, -1)

    def fairness(self, here: _Field) -> Fairness:
        """The state kept: the owners and bots among the entrants only."""
        return Fairness(
            picks=self.picks,
            level=self.level,
            owners={
                owner: OwnerState(self.service(owner), state.matches, state.last_match)
                for owner, state in self.owners.items()
                if owner in here.members
            },
            last_played={key: self.last_played[key] for key in here.keys if key in self.last_played},
        )


def _owner_order(owner: Owner) -> tuple[int, int]:
    return (0, 0) if owner is None else (1, owner)


@dataclass(frozen=True)
class Matchmaker:
    """Matchmaking for one game's ladder (docs/matchmaking.md says how a pick is made).

    ``seats`` per match; ``team_seats``: seats one bot fills on its side (kozel: 2, its entrants
    ``(a, b, a, b)``; 1 for free-for-all games); ``games`` per match (the information a match brings).
    """

    seats: int = 2
    team_seats: int = 1
    games: int = 1
    max_in_play: int = 2
    """A bot with this many ladder matches in play is skipped."""
    boost: int = 3
    """How many times the share of a settled owner a needy owner may get."""
    slack: int = 6
    """How far (in charges: a settled owner pays ``boost`` a match) an owner's service may run ahead
    of the level before the owner waits."""
    settle_games: int = 200
    """A provisional bot with this many games no longer makes its owner needy (a bot whose interval
    never narrows, such as one that loses every game, cannot keep the boost)."""
    explore: float = EXPLORE
    """The share of opponents drawn uniformly from their tier, regardless of the ratings."""
    rank_draw: float = RANK_DRAW
    """The ranking that decides who neighbours whom: the means plus this many times a draw of their
    errors (0: the means)."""

    def __post_init__(self) -> None:
        if self.team_seats < 1 or self.seats % self.team_seats or self.seats // self.team_seats < 2:
            raise ValueError(f"{self.seats} seats cannot hold two or more units of {self.team_seats} seats")
        for name in ("games", "max_in_play", "boost", "settle_games"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.slack < 0:
            raise ValueError("slack must be at least 0")
        if not 0.0 <= self.explore <= 1.0:
            raise ValueError("explore must be a share, from 0 to 1")
        if self.rank_draw < 0.0:
            raise ValueError("rank_draw must be at least 0")

    @property
    def units(self) -> int:
        """Bots per match."""
        return self.seats // self.team_seats

    # ------------------------------------------------------------------------------- public

    def pick(
        self, entrants: Sequence[Entrant], ratings: Ratings, fairness: Fairness, rng: random.Random
    ) -> Pick | None:
        """The next ladder match, or None when fewer than ``units`` entrants are free (in a team game:
        when fewer than ``units`` owners have one). BLAS runs on
        this thread only (at a load of 8 on 2 cores, OpenBLAS's worker threads made a four-seat pick
        among 300 bots 20 times slower: 46 ms)."""
        here = self._field(entrants, ratings)
        if int(here.free.sum()) < self.units or (self.team_seats > 1 and here.free_sides < self.units):
            return None
        tally = _Tally.of(fairness)
        focus = self._focus(here, tally)
        with one_blas_thread():
            group = self._group(here, tally, focus, rng)
        self._record(here, tally, group)
        units = [here.keys[i] for i in group]
        rng.shuffle(units)
        return Pick(
            entrants=tuple(units[seat % self.units] for seat in range(self.seats)),
            focus=here.keys[focus],
            fairness=tally.fairness(here),
        )

    def queue(self, entrants: Sequence[Entrant], ratings: Ratings, fairness: Fairness) -> tuple[int, ...]:
        """Entrant keys in the order they would next be the focus: the picks' focus choices followed
        with the ratings and matches in play as they are, each pick charging its focus owner only (a
        pick also charges its opponents' owners, which can put them further back). The first key is the
        next pick's focus. Bots at ``max_in_play`` come last, by key."""
        here = self._field(entrants, ratings)
        free = int(here.free.sum())
        order: dict[int, None] = {}
        tally = _Tally.of(fairness)
        while len(order) < free:
            focus = self._focus(here, tally)
            order.setdefault(here.keys[focus])
            self._record(here, tally, [focus])
        busy = sorted(here.keys[i] for i in np.flatnonzero(~here.free).tolist())
        return (*order, *busy)

    def pick_random(self, entrants: Sequence[Entrant], rng: random.Random) -> tuple[int, ...] | None:
        """The baseline: ``units`` distinct entrants drawn uniformly (nothing else considered), in seat
        order; None when there are fewer entrants."""
        if len(entrants) < self.units:
            return None
        units = [entrant.key for entrant in rng.sample(list(entrants), self.units)]
        return tuple(units[seat % self.units] for seat in range(self.seats))

    # ------------------------------------------------------------------------------- the field

    def _field(self, entrants: Sequence[Entrant], ratings: Ratings) -> _Field:
        keys = [entrant.key for entrant in entrants]
        if len(set(keys)) != len(keys):
            raise ValueError("an entrant is listed twice")
        n = len(keys)
        at = np.array([ratings.index.get(key, -1) for key in keys], dtype=np.int64)
        known = np.flatnonzero(at >= 0)
        rows = at[known]
        mean = np.zeros(n)
        mean[known] = ratings.mean[rows]
        covariance = np.zeros((n, n))
        covariance[np.ix_(known, known)] = ratings.covariance[np.ix_(rows, rows)]
        unknown = np.flatnonzero(at < 0)
        covariance[unknown, unknown] = ratings.prior_variance
        connected = np.zeros(n, dtype=bool)
        connected[known] = ratings.component[rows] == 0
        provisional = np.ones(n, dtype=bool)
        provisional[known] = ratings.provisional[rows]
        games = np.zeros(n, dtype=np.int64)
        games[known] = ratings.games[rows]
        need = np.where(
            connected, np.where(provisional & (games < self.settle_games), NEEDS_GAMES, SETTLED), NEEDS_LINK
        )
        free = np.array([entrant.in_play < self.max_in_play for entrant in entrants], dtype=bool)
        members: dict[Owner, list[int]] = {}
        in_play: dict[Owner, int] = {}
        for i, entrant in enumerate(entrants):
            members.setdefault(entrant.owner, []).append(i)
            in_play[entrant.owner] = in_play.get(entrant.owner, 0) + entrant.in_play
        free_members = {owner: [i for i in bots if free[i]] for owner, bots in members.items()}
        return _Field(
            keys=keys,
            owners=[entrant.owner for entrant in entrants],
            mean=mean,
            covariance=0.5 * (covariance + covariance.T),
            connected=connected,
            need=need.astype(np.int64),
            games=games,
            free=free,
            members=members,
            free_members={owner: bots for owner, bots in free_members.items() if bots},
            needy={owner: bool((need[bots] < SETTLED).any()) for owner, bots in members.items()},
            free_need={owner: int(need[bots].min()) for owner, bots in free_members.items() if bots},
            in_play=in_play,
        )

    # ------------------------------------------------------------------------------- fairness

    def _charge(self, here: _Field, owner: Owner) -> int:
        return 1 if here.needy[owner] else self.boost

    def _focus(self, here: _Field, tally: _Tally) -> int:
        """The focus bot (a position; there must be a free bot), after raising the tally's level."""
        ready = here.free_members
        tally.level = min(tally.service(owner) for owner in ready)

        def standing(owner: Owner) -> tuple[int, int, int, int, tuple[int, int]]:
            last = tally.owner(owner).last_match
            return here.free_need[owner], tally.service(owner), here.in_play[owner], last, _owner_order(owner)

        owner = min(
            (owner for owner in ready if tally.service(owner) <= tally.level + self.slack), key=standing
        )
        if tally.owner(owner).matches % 2:
            return self._longest_waiting(here, tally, ready[owner])

        def neediest(i: int) -> tuple[int, int, int, int]:
            return int(here.need[i]), int(here.games[i]), tally.last(here.keys[i]), here.keys[i]

        return min(ready[owner], key=neediest)

    @staticmethod
    def _longest_waiting(here: _Field, tally: _Tally, bots: Sequence[int]) -> int:
        """Of these bots (positions), the one that last played longest ago (then the lowest key)."""
        return min(bots, key=lambda i: (tally.last(here.keys[i]), here.keys[i]))

    def _fielded(self, here: _Field, tally: _Tally, focus: int) -> BoolArray:
        """The free bots that may join the focus: on an owner's odd matches (counting from 0) only its
        bot that waited longest, unless it is the focus owner."""
        fielded = np.zeros(len(here.keys), dtype=bool)
        for owner, free in here.free_members.items():
            if owner == here.owners[focus] or tally.owner(owner).matches % 2 == 0:
                fielded[free] = True
            else:
                fielded[self._longest_waiting(here, tally, free)] = True
        return fielded

    def _record(self, here: _Field, tally: _Tally, group: Sequence[int]) -> None:
        """Charge the owners of ``group`` (positions) for a match, and count it."""
        for owner in {here.owners[i] for i in group}:
            state = tally.owner(owner)
            service = tally.service(owner) + self._charge(here, owner)
            tally.owners[owner] = OwnerState(service, state.matches + 1, tally.picks)
        for i in group:
            tally.last_played[here.keys[i]] = tally.picks
        tally.picks += 1

    # ------------------------------------------------------------------------------- information

    def _group(self, here: _Field, tally: _Tally, focus: int, rng: random.Random) -> list[int]:
        """The focus and its opponents, grown one at a time (docs/matchmaking.md)."""
        covariance = np.array(here.covariance, order="F")  # a copy, updated in place
        order = self._ranked(here, rng)
        bound = tally.level + self.slack + self.boost
        allowed = {owner: tally.service(owner) + self._charge(here, owner) <= bound for owner in here.members}
        fair = np.array([allowed[owner] for owner in here.owners])
        fielded = self._fielded(here, tally, focus)
        seated = np.zeros(len(here.keys), dtype=bool)  # the bots of the owners in the match
        group = [focus]
        while True:
            owner = here.owners[group[-1]]
            if owner is not None:  # the platform's built-in bots may share a table
                seated[here.members[owner]] = True
            if self.team_seats == 1:  # a free-for-all's last resort: one owner, one bot
                fielded[here.free_members.get(owner, [])] = True
            fielded[group] = False
            if len(group) == self.units:
                return group
            tier = 2 * (~fair).astype(np.int64)
            if not here.connected[group].any():
                tier += ~here.connected  # bridging: bots of the main pool first
            tier[seated] = 4
            eligible = fielded & (tier == tier[fielded].min())
            if rng.random() < self.explore:  # regardless of the ratings (docs/matchmaking.md)
                score = np.where(eligible, 0.0, -np.inf)
            else:
                contrasts = covariance[order[1:]] - covariance[order[:-1]]
                squares = np.einsum("ij,ij->j", contrasts, contrasts)
                gain = sum(self._gains(covariance, contrasts, squares, member) for member in group)
                score = np.where(eligible, gain, -np.inf)
            top = float(score.max())
            ties = np.flatnonzero(score >= top - 1e-9 * abs(top)).tolist()
            chosen = ties[rng.randrange(len(ties))] if len(ties) > 1 else ties[0]
            if len(group) + 1 < self.units:
                for member in group:
                    self._compare(covariance, member, chosen)
            group.append(chosen)

    def _ranked(self, here: _Field, rng: random.Random) -> IntArray:
        """The entrants (positions) ranked by their means plus ``rank_draw`` times a draw of their
        errors (docs/matchmaking.md)."""
        n = len(here.keys)
        z = np.array([rng.gauss(0.0, 1.0) for _ in range(n)])
        try:
            noise = np.linalg.cholesky(here.covariance + 1e-12 * np.eye(n)) @ z
        except np.linalg.LinAlgError:  # not positive definite to working precision: the variances only
            noise = np.sqrt(np.maximum(np.diagonal(here.covariance), 0.0)) * z
        return np.argsort(here.mean + self.rank_draw * noise, kind="stable")

    def _weight(self, variance: FloatArray) -> FloatArray:
        """Expected Fisher information of the match's comparisons of two bots whose unit difference has
        this variance, at an even match (the difference of their means is not read: see the module
        docstring)."""
        k = self.units
        pair = 4.0 * (k - sum(1.0 / j for j in range(1, k + 1))) / (k * (k - 1))
        kappa = 1.0 / np.sqrt(1.0 + math.pi * variance / 8.0)
        return np.asarray(self.games * pair * kappa / 4.0, dtype=np.float64)

    def _variance(self, covariance: FloatArray, a: int) -> FloatArray:
        """Variance of the unit difference of ``a`` and every bot."""
        diagonal = np.diagonal(covariance)
        return np.asarray(
            self.team_seats**2 * np.maximum(covariance[a, a] + diagonal - 2.0 * covariance[a], 0.0),
            dtype=np.float64,
        )

    def _gains(
        self, covariance: FloatArray, contrasts: FloatArray, squares: FloatArray, a: int
    ) -> FloatArray:
        """For every bot b: the expected reduction of the summed variance of the neighbour contrasts
        from comparing ``a`` with ``b`` (zero for ``b == a``)."""
        variance = self._variance(covariance, a)
        weight = self._weight(variance)
        moved = self.team_seats**2 * (squares[a] - 2.0 * (contrasts[:, a] @ contrasts) + squares)
        return np.asarray(weight * np.maximum(moved, 0.0) / (1.0 + weight * variance), dtype=np.float64)

    def _compare(self, covariance: FloatArray, a: int, b: int) -> None:
        """Update the covariance (Fortran order, in place) for the match's comparison of ``a`` with
        ``b``, as expected: a rank-one update."""
        variance = self._variance(covariance, a)[b]
        weight = float(self._weight(np.array([variance]))[0])
        along = self.team_seats * (covariance[:, a] - covariance[:, b])
        blas.dger(-weight / (1.0 + weight * variance), along, along, a=covariance, overwrite_a=True)
