"""Consistency flags: bots whose results depart from their rating by more than chance allows.

``flags`` tests every bot's results against its fitted rating in two ways and names where they
depart: against one opponent (its unit finished above the other's), and in the first half of its
games against the second (its unit finished first, alone). Each segment is tested for a shift of its
log-odds by the signed root of the likelihood ratio, standardized for what the fit absorbed; a bot is
flagged when a test exceeds ``threshold(m)`` (3 standard errors, or the Bonferroni bound for
``ALPHA`` per bot if higher). numpy only: no database; the caller names the bots (``Flag.text``).

Why, and the figures: docs/ratings-model.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from arena.ratings.model import ELO_PER_NAT, Ladder
from arena.ratings.results import BoolArray, FloatArray, IntArray, Results

MIN_TRIALS = 10
"""The fewest decided games a pair (or each half of a bot's games) needs to be tested."""
ALPHA = 0.002
"""Family-wise false-flag level per bot, for its tests together (Bonferroni)."""
MIN_STANDARD_ERRORS = 3.0
"""No test flags below this many standard errors, however few tests a bot has."""
MIN_RESIDUAL_SHARE = 0.05
"""A segment whose trials the fit absorbed all but this share of (``1 - h``) is not tested: the rest
of the results say too little about it."""
_MAX_SHIFT = 12.0
"""Bound on the fitted shift (nats): an unbeaten segment's likelihood is then its supremum to 1e-5."""


@dataclass(frozen=True)
class Flag:
    """Why a bot's results are not one number: against ``opponent`` (a bot index), or between the
    first and second halves of its games (``opponent`` None)."""

    bot: int
    opponent: int | None
    standard_errors: float
    """The test's signed statistic (positive: better than its rating says)."""
    departure: float
    """Elo by which the results against the opponent, or in the first half, depart from its rating
    (infinite for a segment all won or all lost)."""
    won: int
    """Games won against the opponent (or first-half games won outright)."""
    games: int
    """Decided games against the opponent (or first-half games)."""
    expected: float
    """Games its rating expects it to have won of those."""
    second_departure: float = 0.0
    """For the halves: the second half's departure, Elo."""
    second_games: int = 0

    def text(self, name: Callable[[int], str]) -> str:
        """The flag as the ladder shows it, naming the opponent with ``name(bot index)``."""
        sigma = f"{abs(self.standard_errors):.1f} standard errors"
        if self.opponent is not None:
            return (
                f"inconsistent results against {name(self.opponent)}: won {self.won} of {self.games} "
                f"where its rating expects {self.expected:.0f} ({_elo(self.departure)}; {sigma})"
            )
        return (
            f"inconsistent results between its first {self.games} games ({_elo(self.departure)} from its "
            f"rating) and its next {self.second_games} ({_elo(self.second_departure)}; {sigma})"
        )


@dataclass(frozen=True, eq=False)
class _Trials:
    """Binary trials (won, with log-odds ``eta`` under the fit), each standing for ``weight`` games,
    grouped in ``count`` segments."""

    segment: IntArray
    won: BoolArray
    eta: FloatArray
    weight: FloatArray
    count: int


@dataclass(frozen=True, eq=False)
class _Test:
    """Per segment: trials, won, expected wins, information, fitted shift and signed root LR."""

    trials: IntArray
    won: IntArray
    expected: FloatArray
    information: FloatArray
    shift: FloatArray
    root: FloatArray


def _elo(departure: float) -> str:
    """A departure for the flag's text; an unbounded one is all won or all lost."""
    if math.isfinite(departure):
        return f"{departure:+.0f} Elo"
    return "all won" if departure > 0 else "all lost"


def _departure(shift: float) -> float:
    """A fitted shift in Elo; infinite at the bound (``_MAX_SHIFT``)."""
    return shift * ELO_PER_NAT if abs(shift) < _MAX_SHIFT else math.copysign(math.inf, shift)


def threshold(tests: int) -> float:
    """Standard errors a bot's test must exceed when it has ``tests`` tests (see the module)."""
    bound = NormalDist().inv_cdf(1.0 - ALPHA / (2.0 * max(tests, 1)))
    return max(MIN_STANDARD_ERRORS, bound)


def flags(ladder: Ladder, results: Results) -> list[Flag | None]:
    """Per bot index of ``ladder`` (fitted on ``results``, its games in the order played): the most
    departing of its tests that exceeds its threshold, or None."""
    n = ladder.n_bots
    if results.n_games == 0:
        return [None] * n
    table = _Table.build(ladder.theta, results)
    covariance = _centred(ladder.inverse)
    pair = _pair_tests(table, covariance, n)
    half = _half_tests(table, covariance, n)
    tests = np.bincount(pair.bots.reshape(-1), minlength=n) + half.tested.astype(np.int64)
    limit = np.array([threshold(int(m)) for m in tests])
    best: list[Flag | None] = [None] * n
    t = pair.test
    beyond = np.abs(pair.z) > np.maximum(limit[pair.bots[:, 0]], limit[pair.bots[:, 1]])
    for k in np.flatnonzero(beyond).tolist():
        a, b = int(pair.bots[k, 0]), int(pair.bots[k, 1])
        z = float(pair.z[k])
        for bot, other, sign in ((a, b, 1.0), (b, a, -1.0)):
            won = int(t.won[k]) if sign > 0 else int(t.trials[k] - t.won[k])
            expected = float(t.expected[k]) if sign > 0 else float(t.trials[k] - t.expected[k])
            flag = Flag(
                bot, other, sign * z, _departure(sign * float(t.shift[k])), won, int(t.trials[k]), expected
            )
            best[bot] = _stronger(best[bot], flag)
    for bot in np.flatnonzero(half.tested & (np.abs(half.z) > limit)).tolist():
        first, second = half.first, half.second
        flag = Flag(
            bot,
            None,
            float(half.z[bot]),
            _departure(float(first.shift[bot])),
            int(first.won[bot]),
            int(first.trials[bot]),
            float(first.expected[bot]),
            second_departure=_departure(float(second.shift[bot])),
            second_games=int(second.trials[bot]),
        )
        best[bot] = _stronger(best[bot], flag)
    return best


def _stronger(old: Flag | None, new: Flag) -> Flag:
    return new if old is None or abs(new.standard_errors) > abs(old.standard_errors) else old


@dataclass(frozen=True, eq=False)
class _Table:
    """Every seat's game, bot and unit (a game's lone seat or team), and the units' log-strengths,
    ranks and games."""

    game: IntArray
    bot: IntArray
    unit: IntArray
    """Per seat, its unit's index (over all games)."""
    unit_strength: FloatArray
    """Per unit, the sum of its members' log-strengths (the model's: a team seating a bot twice counts
    it twice)."""
    unit_rank: IntArray
    unit_game: IntArray
    unit_signature: FloatArray
    """Per unit, the sum of its members' random labels (``_bot_hash``): equal for units of the same
    bots, and for no two different ones but by a chance of about 1e-16 a pair."""
    offsets: IntArray
    """Each game's first seat (``Results.offsets``)."""
    unit_seats: IntArray
    """The seats ordered by unit, each unit's from ``unit_offsets[u]``."""
    unit_offsets: IntArray
    lone: bool
    """Every unit is one seat (no teams)."""

    @classmethod
    def build(cls, theta: FloatArray, results: Results) -> _Table:
        sizes = np.diff(results.offsets)
        game = np.repeat(np.arange(results.n_games, dtype=np.int64), sizes)
        seat = np.arange(len(results.bots), dtype=np.int64) - results.offsets[game]
        label = seat if results.teams is None else results.teams
        key = game * int(sizes.max()) + label
        keys, unit = np.unique(key, return_inverse=True)
        unit = unit.reshape(-1).astype(np.int64)
        unit_rank = np.zeros(len(keys), dtype=np.int64)
        unit_rank[unit] = results.ranks
        unit_game = np.zeros(len(keys), dtype=np.int64)
        unit_game[unit] = game
        return cls(
            game=game,
            bot=results.bots,
            unit=unit,
            unit_strength=_sums(unit, theta[results.bots], len(keys)),
            unit_rank=unit_rank,
            unit_game=unit_game,
            unit_signature=_sums(unit, _bot_hash(results.bots), len(keys)),
            offsets=results.offsets,
            unit_seats=np.argsort(unit, kind="stable"),
            unit_offsets=np.r_[0, np.cumsum(np.bincount(unit, minlength=len(keys)))],
            lone=results.teams is None,
        )


def _sums(index: IntArray, weights: FloatArray, length: int) -> FloatArray:
    """``weights`` summed by ``index`` into ``length`` bins."""
    return np.asarray(np.bincount(index, weights=weights, minlength=length), dtype=np.float64)


def _bot_hash(bots: IntArray) -> FloatArray:
    """A fixed random label in [0, 1) per bot index."""
    return np.random.default_rng(34).random(int(bots.max()) + 1)[bots]


def _centred(covariance: FloatArray) -> FloatArray:
    """The covariance of the log-strengths less their mean (the prior's weakly known overall level
    out), for derivatives that do not sum to zero."""
    rows = covariance.mean(axis=0)
    centred: FloatArray = covariance - rows[None, :] - rows[:, None] + float(rows.mean())
    return centred


@dataclass(frozen=True, eq=False)
class _PairTests:
    bots: IntArray
    """(k, 2) the tested pairs, lower index first."""
    test: _Test
    z: FloatArray


def _pair_tests(table: _Table, covariance: FloatArray, n: int) -> _PairTests:
    """Per pair of bots with at least ``MIN_TRIALS`` decided games apart, from the lower index's side."""
    left, right = _seat_pairs(table)
    same_bot = table.bot[left] == table.bot[right]
    repeats = bool(same_bot.any())  # a bot in two seats of a game (a kozel side held by one bot)
    keep = ~same_bot & (table.unit_rank[table.unit[left]] != table.unit_rank[table.unit[right]])
    keep &= table.unit[left] != table.unit[right]
    left, right = left[keep], right[keep]
    swap = table.bot[left] > table.bot[right]
    left, right = np.where(swap, right, left), np.where(swap, left, right)
    a, b = table.bot[left], table.bot[right]
    if repeats:  # one trial per game and pair
        _, first = np.unique((table.game[left] * n + a) * n + b, return_index=True)
        left, right, a, b = left[first], right[first], a[first], b[first]
    ua, ub = table.unit[left], table.unit[right]
    keys, segment = _labels(a * n + b, n * n)
    won = table.unit_rank[ua] < table.unit_rank[ub]
    # games of one pair between the same two units (the same partners) and with the same result are
    # one trial counted that many times; where every unit is one seat, the pair's units are its bots
    if table.lone:
        key = segment * 2 + won
        order = np.argsort(key, kind="stable")
        new = np.r_[True, key[order][1:] != key[order][:-1]][: len(order)]
    else:
        signature = table.unit_signature
        columns = (segment, signature[ua], signature[ub], won)
        order = np.lexsort(columns[::-1])
        new = np.zeros(len(order), dtype=bool)
        for column in columns:
            new[1:] |= column[order][1:] != column[order][:-1]
        new[:1] = True
    pick = order[new]
    weight = np.diff(np.r_[np.flatnonzero(new), len(order)]).astype(np.float64)
    ua, ub = ua[pick], ub[pick]
    trials = _Trials(
        segment=segment[pick],
        won=won[pick],
        eta=table.unit_strength[ua] - table.unit_strength[ub],
        weight=weight,
        count=len(keys),
    )
    test = _test(trials)
    # a trial's log-odds: its first unit's members up, the second's down (partners included, in
    # team games)
    owner_a, seats_a = _members(table.unit_seats, table.unit_offsets, ua)
    owner_b, seats_b = _members(table.unit_seats, table.unit_offsets, ub)
    owner = np.concatenate([owner_a, owner_b])
    coefficient = np.concatenate([np.ones(len(seats_a)), -np.ones(len(seats_b))])
    absorbed = _absorbed(
        trials, owner, table.bot[np.concatenate([seats_a, seats_b])], coefficient, covariance
    )
    z = _standardized(test, absorbed)
    tested = (test.trials >= MIN_TRIALS) & np.isfinite(z)
    bots = np.stack([keys // n, keys % n], axis=1).astype(np.int64)
    return _PairTests(bots=bots[tested], test=_select(test, tested), z=z[tested])


def _labels(values: IntArray, size: int) -> tuple[IntArray, IntArray]:
    """The distinct ``values`` (all in ``[0, size)``), ascending, and each value's index among them:
    ``np.unique``'s, without its sort where a table of ``size`` flags is small."""
    if size > 1 << 24:
        distinct, index = np.unique(values, return_inverse=True)
        return distinct, index.reshape(-1)
    present = np.zeros(size, dtype=bool)
    present[values] = True
    return np.flatnonzero(present), (np.cumsum(present) - 1)[values]


def _seat_pairs(table: _Table) -> tuple[IntArray, IntArray]:
    """Every pair of seats of one game (indexes into the seats), per game size at once."""
    starts = np.flatnonzero(np.r_[True, table.game[1:] != table.game[:-1]])
    sizes = np.diff(np.r_[starts, len(table.game)])
    lefts, rights = [], []
    for size in np.unique(sizes).tolist():
        i, j = np.triu_indices(size, 1)
        base = starts[sizes == size]
        lefts.append((base[:, None] + i[None, :]).reshape(-1))
        rights.append((base[:, None] + j[None, :]).reshape(-1))
    return np.concatenate(lefts).astype(np.int64), np.concatenate(rights).astype(np.int64)


def _members(positions: IntArray, offsets: IntArray, wanted: IntArray) -> tuple[IntArray, IntArray]:
    """For each of ``wanted`` (one per trial), its ``positions[offsets[w]:offsets[w + 1]]``: the
    trial's index and each position."""
    start = offsets[wanted]
    width = offsets[wanted + 1] - start
    before = np.repeat(np.cumsum(width) - width, width)
    index = np.repeat(start, width) + np.arange(int(width.sum())) - before
    return np.repeat(np.arange(len(wanted)), width), positions[index]


def _absorbed(
    trials: _Trials, owner: IntArray, bots: IntArray, coefficient: FloatArray, covariance: FloatArray
) -> FloatArray:
    """Per segment, ``g' Cov g`` for ``g`` the derivative of its expected wins in the log-strengths:
    each trial's information times its log-odds' coefficients (``coefficient`` of bot ``bots`` in
    trial ``owner``), summed over the segment's trials and over the pairs of bots it touches."""
    weight = (_information(trials) * trials.weight)[owner] * coefficient
    n = len(covariance)
    keys, index = np.unique(trials.segment[owner] * n + bots, return_inverse=True)
    value = _sums(index.reshape(-1), weight, len(keys))
    segment, bot = keys // n, keys % n
    # every pair of entries of one segment (keys are sorted, so a segment's entries are adjacent)
    width = np.bincount(segment, minlength=trials.count)[segment]
    first = np.searchsorted(segment, segment, side="left")
    left = np.repeat(np.arange(len(keys)), width)
    right = np.repeat(first, width) + np.arange(int(width.sum())) - np.repeat(np.cumsum(width) - width, width)
    terms = value[left] * value[right] * covariance[bot[left], bot[right]]
    return _sums(segment[left], terms, trials.count)


@dataclass(frozen=True, eq=False)
class _HalfTests:
    first: _Test
    second: _Test
    z: FloatArray
    tested: BoolArray


def _half_tests(table: _Table, covariance: FloatArray, n: int) -> _HalfTests:
    """Per bot: its first half of games against its rating, with what the fit absorbed of them."""
    # one trial per game and bot: its unit won alone (games with a tie for first left out)
    top = table.unit_rank == 0
    games = int(table.game[-1]) + 1
    winners = _sums(table.unit_game, top.astype(np.float64), games)
    _, first_seat = np.unique(table.game * n + table.bot, return_index=True)  # by game: in the order played
    bot = table.bot[first_seat]
    game = table.game[first_seat]
    unit = table.unit[first_seat]
    # each bot's games numbered in order; its first half is the first floor(games / 2)
    order = np.argsort(bot, kind="stable")
    played = np.bincount(bot, minlength=n)
    index = np.empty(len(bot), dtype=np.int64)
    index[order] = np.arange(len(bot)) - np.repeat(np.cumsum(played) - played, played)
    second_half = index >= played[bot] // 2
    # log-odds of winning: the unit's strength over the rest of the table's (relative to the game's
    # strongest unit, against overflow)
    strength = table.unit_strength
    game_top = np.full(games, -np.inf)
    np.maximum.at(game_top, table.unit_game, strength)
    unit_alpha = np.exp(strength - game_top[table.unit_game])
    # the rest of the table: the game's strongest unit (one of them) is left out of a sum, so that the
    # strongest unit's rest is not a difference of two nearly equal numbers
    top_unit = np.zeros(games, dtype=np.int64)
    top_unit[table.unit_game] = np.arange(len(strength))
    top_unit[table.unit_game[unit_alpha == 1.0]] = np.flatnonzero(unit_alpha == 1.0)
    is_top = top_unit[table.unit_game] == np.arange(len(strength))
    others = _sums(table.unit_game, np.where(is_top, 0.0, unit_alpha), games)[game]
    rest = np.where(is_top[unit], others, others + 1.0 - unit_alpha[unit])
    eta = np.log(unit_alpha[unit]) - np.log(rest)
    tests = []
    for half in (False, True):
        mine = (winners[game] == 1) & (second_half == half)
        ones = np.ones(int(mine.sum()))
        tests.append(_Trials(segment=bot[mine], won=top[unit[mine]], eta=eta[mine], weight=ones, count=n))
    # g per bot, dense: each first-half trial's log-odds has its unit's members up, every other
    # unit's members down by that unit's share of the rest
    mine = (winners[game] == 1) & ~second_half
    owner, seats = _members(np.arange(len(table.game)), table.offsets, game[mine])
    seat_unit = table.unit[seats]
    share = unit_alpha[seat_unit] / rest[mine][owner]
    coefficient = np.where(seat_unit == unit[mine][owner], 1.0, -share)
    weight = _information(tests[0])[owner] * coefficient
    grad = _sums(bot[mine][owner] * n + table.bot[seats], weight, n * n).reshape(n, n)
    absorbed = np.einsum("ij,ij->i", grad @ covariance, grad)
    first, second = _test(tests[0]), _test(tests[1])
    z = _standardized(first, absorbed)
    tested = (first.trials >= MIN_TRIALS) & (second.trials >= MIN_TRIALS) & np.isfinite(z)
    return _HalfTests(first=first, second=second, z=np.where(tested, z, 0.0), tested=tested)


def _information(trials: _Trials) -> FloatArray:
    p = 0.5 * (1.0 + np.tanh(0.5 * trials.eta))
    return p * (1.0 - p)


def _test(trials: _Trials) -> _Test:
    """Per segment, the likelihood ratio test of a shift of its trials' log-odds (Newton's method on
    all segments at once)."""
    k, seg, w = trials.count, trials.segment, trials.weight
    y = trials.won.astype(np.float64)

    def loglik(shift: FloatArray) -> FloatArray:
        x = trials.eta + shift[seg]
        return _sums(seg, w * (y * x - np.logaddexp(0.0, x)), k)

    p0 = 0.5 * (1.0 + np.tanh(0.5 * trials.eta))
    count = _sums(seg, w, k)
    won = _sums(seg, w * y, k)
    expected = _sums(seg, w * p0, k)
    information = _sums(seg, w * p0 * (1.0 - p0), k)
    shift = np.zeros(k)
    for _ in range(60):
        p = 0.5 * (1.0 + np.tanh(0.5 * (trials.eta + shift[seg])))
        grad = _sums(seg, w * (y - p), k)
        curvature = _sums(seg, w * p * (1.0 - p), k)
        step = np.clip(grad / np.maximum(curvature, 1e-12), -1.0, 1.0)
        moved = np.clip(shift + step, -_MAX_SHIFT, _MAX_SHIFT)
        done = float(np.max(np.abs(moved - shift), initial=0.0)) < 1e-9
        shift = moved
        if done:
            break
    ratio = np.maximum(2.0 * (loglik(shift) - loglik(np.zeros(k))), 0.0)
    return _Test(
        trials=np.rint(count).astype(np.int64),
        won=np.rint(won).astype(np.int64),
        expected=expected,
        information=information,
        shift=shift,
        root=np.sign(shift) * np.sqrt(ratio),
    )


def _standardized(test: _Test, absorbed: FloatArray) -> FloatArray:
    """The signed root over ``sqrt(1 - h)``, ``h = absorbed / information``; NaN where the fit
    absorbed nearly all of the segment (``MIN_RESIDUAL_SHARE``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        residual = 1.0 - absorbed / test.information
    ok = residual >= MIN_RESIDUAL_SHARE
    return np.where(ok, test.root / np.sqrt(np.where(ok, residual, 1.0)), math.nan)


def _select(test: _Test, keep: BoolArray) -> _Test:
    return _Test(
        trials=test.trials[keep],
        won=test.won[keep],
        expected=test.expected[keep],
        information=test.information[keep],
        shift=test.shift[keep],
        root=test.root[keep],
    )
