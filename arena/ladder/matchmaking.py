"""Matchmaking for the living ladder: which bots play the next ladder match, and in which seats.

Pure: no database, no I/O; the only randomness is the ``random.Random`` the caller passes, so the same
arguments and a generator in the same state give the same pick.

What the caller gives each pick
-------------------------------
* the entrants (``Entrant``): every bot of the game that may play, by ``key`` (the bot version id),
  with its ``owner`` (a user id; ``None`` for the platform's built-in bots, which count as one owner)
  and how many ladder matches it has ``in_play`` now;
* the ratings (``Ratings``; ``ratings_from_ladder`` makes them from a fitted ladder): per key the mean
  log-strength (nats), the covariance, the component (0: the main pool), the provisional flag and the
  games played. An entrant the ratings do not know stands at the prior: mean 0, variance
  ``Ratings.prior_variance``, no games, provisional, linked to no one;
* the fairness state (``Fairness``) that the previous pick returned: ``Fairness()`` the first time, or
  after a restart (it only keeps the next picks fair; the ladder needs nothing from it).

``Matchmaker.pick`` returns the match (``Pick.entrants``: bot keys in starting seat order; the runner
rotates the seats per game and duplicates deals itself), its focus, and the fairness state for the
next pick. ``Matchmaker.queue`` gives the order in which the entrants would next be the focus, for an
owner to see where its bots stand. ``Matchmaker.pick_random`` is the baseline: uniformly random bots,
nothing else considered.

A pick
------
1. **The focus owner.** Owners share the ladder, not bots. Each owner has a *service* count, charged
   for every match that seats any of its bots (once per match, however many of its bots play): 1 if
   one of its bots *needs games* (not linked to the main pool, or provisional with fewer than
   ``settle_games`` games), else ``boost``. So an owner with a bot to rate gets up to ``boost`` times
   the matches of an owner whose bots are settled, and no owner's share grows with the number of its
   bots. The *level* is the least service among the owners with a free bot; an owner below it (new to
   the ladder, or back from an absence) is raised to it, so nobody banks matches. The owners *in turn*
   are those within ``slack`` of the level; among them the focus owner is the one with a free bot not
   linked to the main pool, else with a provisional one, else any; then the least served, the fewest
   matches in play, the one whose last match was longest ago, the lowest owner id (built-ins first).
2. **The focus bot** of that owner: at its even-numbered matches (counting from 0) the free bot that
   needs games most (not linked, then provisional with few games, then the fewest games, then the one
   that played longest ago); at its odd-numbered matches the free bot that played longest ago.
3. **The opponents**: the other ``units - 1`` bots, where a *unit* is what the model rates as one
   player: a bot in a free-for-all, a team in a team game, where one bot fills ``team_seats`` seats of
   its side. They are chosen one at a time, from tiers in order: bots of owners not yet in the match
   (one owner, one bot a match: see below); bots whose owner would stay within ``slack + boost`` of the
   level after its charge (fairness); while the match has no bot of the main pool, bots of the main
   pool (bridging); then, with probability ``explore`` (a quarter), any bot of the first tier (the
   generator draws it, the ratings are not read), else the most information. Every owner joining at an
   odd-numbered match of its own fields only its free bot that played longest ago (none of its other
   bots). Exact ties in information go to the generator.

   One owner, one bot: a free-for-all match seats a second bot of an owner only when no other owner
   has a bot free to join (a ladder of three owners still plays four-seat games), and a team game
   never seats an owner's bots on opposing sides (no pick while fewer owners than sides have a free
   bot); the platform's built-in bots are exempt (each counts as an owner of its own here). An
   owner's bots at one table can hand one of them the game: a sybil that always finishes last beside
   its owner's main bot is a free win. Before, an owner in the match counted as fair (it is charged
   once a match) and its other bots came first, so its bots shared tables: in a simulated 41-bot
   four-seat ladder (``tests/ladder/test_sybils.py``; 8 seeds of 1000 matches) a main bot sat with its
   owner's 9 sybils in 94% of its matches and gained +207 Elo (+122 to +281) from their thrown games
   (random pairing: +120, with its sybils in 55%); now it never sits with them and gains +2 (-29 to
   +34: the fit's error).

   Information: rank the entrants by their means plus twice a draw of their errors (``rank_draw``,
   below); a comparison of bots ``a`` and ``b``, ``u = team_seats
   (e_a - e_b)``, with expected Fisher information ``w``, shrinks the covariance ``S`` by a rank-one
   update, and the summed variance of the neighbouring rating differences (``c_i = e_r(i) -
   e_r(i+1)`` over consecutive ranks) by ``w sum_i (c_i' S u)^2 / (1 + w u' S u)``. ``w = games *
   k_pair * kappa / 4``: an even match's ``p (1 - p)``, shrunk as the probit approximation of its
   expectation over the uncertain difference (variance ``v = u' S u``) shrinks it, ``kappa = 1 /
   sqrt(1 + pi v / 8)``; the difference of the means is not read. A game of ``k`` units counts as its
   pairwise comparisons, each weighted ``k_pair = 4 (k - H_k) / (k (k - 1))`` (``H_k`` the harmonic
   number) so that a bot's information is Plackett-Luce's between equal bots (1 for two units). A
   group grows greedily: a candidate scores the sum over the members so far, and the covariance takes
   the new member's comparisons before the next is chosen.

   Why the means only rank, and a quarter of opponents ignore the ratings: pairs chosen by the
   current estimates select on their noise. A gap that happens to look wide stops being played (a
   lopsided-looking pair promises little information, and bots in between become the neighbours),
   while one that looks narrow is played until it widens; so gaps end up too wide: the fitted ladder
   is stretched, its intervals too narrow for its error. Weighing pairs by ``E[p (1 - p)]`` at their
   mean difference stretched the fitted Elo to a slope of 1.16 to 1.2 on the truth in
   ``bench/ladder.py`` (random pairing: 1.00) and the 95% intervals of two-seat bots covered 0.84;
   refitting the same pairings with their results drawn afresh gave a slope of 1.00 and coverage
   0.95: the design's selection, not the estimator. Opponents drawn regardless of the ratings play
   games whose pairing owes nothing to earlier results, and pin the scale (a comparison tells about
   the scale in proportion to the square of its gap, and random opponents are far apart).

   The price, in ``bench/ladder.py --seeds 32`` (two seats; games to a Spearman correlation of 0.95
   over random pairing's, then the 95% intervals' coverage), with the ladder's prior at half a
   virtual game: 0.74 and 0.94 as above; 0.73 and 0.90 with no opponent drawn at random; 0.66 and 0.85
   weighing pairs at their mean difference; 0.70 and 0.91, or 0.72 and 0.93, with a quarter or a half
   of those drawn at random. Drawing the quarter by fewest games, or from the nearest quarter of
   ranks, gained no games. With the prior estimated from the field (``arena.ratings.model``, about 1.7
   virtual games there): 0.685 (90% bootstrap over the seeds 0.64 to 0.73) and 0.95, meeting the goal
   of 0.70; over 64 seeds 0.697 (0.68 to 0.74). The seeds' own ratios spread from 0.53 to 0.87.
   Ranking by a draw, not the means: on a clustered field (``bench/ladder.py --clusters 2 --gap 300
   --sd 50``: two groups of SD 50 Elo, 300 apart) the means' neighbours kept each group's ladder to
   itself, chosen on the luck that set its order, and the 95% intervals covered 0.902 (random
   pairing: 0.953), the fitted spread 1.045 of the true; ranking by the means plus twice a draw of
   their errors (the posterior's, correlations included) covered 0.953, spread 1.010, in 0.772 of
   random pairing's games to a Spearman correlation of 0.95 (0.831 before); 16 seeds each (once a
   draw: 0.928 over 6). With every bot there from the start (``--start 100``) 0.723 of random
   pairing's games (0.777 before); with arrivals (the default) 0.724 (0.731 before). The price: a
   bot at the edge of a gap meets bots across it, as the edge bots of the means' order always did,
   but now either of two bots the ratings cannot tell apart may be that edge.

   Choosing the focus owner among those in turn by its bot's most informative match, instead of the
   least served first, took 0.669 over 64 seeds (coverage 0.944); not adopted: the least served owner
   would wait while every other owner in turn ran up to ``slack`` charges ahead of it.
4. **Seats**: the units in random order (the generator); a team's bot fills every ``units``-th seat,
   as in ``arena.tournament.schedule.team_round_robin``: kozel's entrants are ``(a, b, a, b)``.

A bot with ``max_in_play`` ladder matches in play is skipped while others wait; when fewer than
``units`` bots are free (in a team game: when fewer than ``units`` owners have one) there is no pick
(``None``).

Guarantees
----------
* Fairness: an owner's service exceeds the level by at most ``slack + boost``, unless no bot of an
  owner within that bound and not yet in the match is free to complete it (then the match takes
  bots of owners further ahead: the ladder never stalls for fairness); and the level rises with the
  least served owners' matches. So over many picks the owners' shares of matches are equal, but for
  the ``boost`` of the owners with a bot to rate.
* No starvation: an owner with a free bot is in turn within a bounded number of picks (its service
  stays put while the level rises to it), and at each of its odd-numbered matches its free bot that
  played longest ago plays, so each of its ``b`` bots plays within ``2 b`` of its owner's matches: a
  bot that never settles (one that loses every game never narrows its interval) cannot starve the
  others of its owner.
* One owner, one bot: no match seats two bots of a user while a bot of another owner is free to
  join; no team game seats them on opposing sides.
* Bridging: a bot not linked to the main pool makes its owner first among the owners in turn, is its
  owner's focus at even-numbered matches, and meets a bot of the main pool when one is free and fair.
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
"""The share of opponents drawn regardless of the ratings (see the module docstring)."""

RANK_DRAW = 2.0
"""The ranking's draw, in the ratings' errors (see the module docstring)."""

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
    """Charges for the matches that seated its bots (see the module docstring)."""
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
    """Matchmaking for one game's ladder (the module docstring says how a pick is made).

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
        """The focus and its opponents, grown one at a time (see the module docstring)."""
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
            if rng.random() < self.explore:  # regardless of the ratings (see the module docstring)
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
        errors (see the module docstring)."""
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
