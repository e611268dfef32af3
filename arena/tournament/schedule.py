"""The tournament scheduler: which bots play which matches, in which seats, with which seeds.

Pure, typed and deterministic: no I/O, no database, and the only randomness is a ``random.Random``
seeded from the ``seed`` argument, so the same arguments always give the same schedule. A schedule is
a list of ``MatchPlan`` (entrants in starting seat order, match seed, round, index), made by
``round_robin`` (free-for-all: every pair meets equally often, or at least ``min_meetings`` times per
round when the field is too large), ``team_round_robin`` (2 vs 2, every pair of teams once per round)
or ``gauntlet`` (a new bot against the field). ``pair_meetings`` and ``seat_counts`` show the balance.
Bad input raises ``ValueError`` with the reason.

The designs, their guarantees, sizes and costs: docs/scheduling.md.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from arena.runner.deals import derive_seed

__all__ = [
    "MatchPlan",
    "gauntlet",
    "pair_meetings",
    "round_robin",
    "seat_counts",
    "team_round_robin",
]


@dataclass(frozen=True)
class MatchPlan:
    """One match of a schedule."""

    entrants: tuple[str, ...]
    """Bot ids in starting seat order (a team's bot fills both of its seats)."""
    seed: int
    """The match seed: ``derive_seed(tournament seed, "match", kind, index)``."""
    round: int
    """The tournament round, from 0."""
    index: int
    """The plan's position in its schedule, from 0."""

    def to_dict(self) -> dict[str, Any]:
        return {"entrants": list(self.entrants), "seed": self.seed, "round": self.round, "index": self.index}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MatchPlan:
        return cls(
            entrants=tuple(str(bot) for bot in data["entrants"]),
            seed=int(data["seed"]),
            round=int(data["round"]),
            index=int(data["index"]),
        )


# --- helpers shown to the tests and the CLI ---------------------------------------------------


def pair_meetings(plans: Iterable[MatchPlan]) -> dict[frozenset[str], int]:
    """How many matches each pair of distinct bots shares (a team's two seats count once)."""
    meetings: Counter[frozenset[str]] = Counter()
    for plan in plans:
        for a, b in combinations(sorted(set(plan.entrants)), 2):
            meetings[frozenset((a, b))] += 1
    return dict(meetings)


def seat_counts(plans: Iterable[MatchPlan]) -> dict[str, Counter[int]]:
    """For each bot, how many matches it starts at each seat."""
    counts: dict[str, Counter[int]] = {}
    for plan in plans:
        for seat, bot in enumerate(plan.entrants):
            counts.setdefault(bot, Counter())[seat] += 1
    return counts


# --- schedulers -------------------------------------------------------------------------------


def round_robin(
    bots: Sequence[str],
    seats: int,
    *,
    seed: int,
    rounds: int = 1,
    max_matches: int = 2000,
    min_meetings: int = 1,
) -> list[MatchPlan]:
    """A free-for-all schedule: every k-subset per round if there are at most ``max_matches`` of
    them, else a greedy resolvable covering in which every pair meets ``min_meetings`` times per
    round (docs/scheduling.md gives the guarantees)."""
    field = _check_ids(bots, "bot")
    _check_int("seats", seats, 2)
    _check_int("rounds", rounds, 1)
    _check_int("max_matches", max_matches, 1)
    _check_int("min_meetings", min_meetings, 1)
    _check_int("seed", seed, None)
    n, k = len(field), seats
    if n < k:
        raise ValueError(f"{n} bots cannot fill a {k}-seat match: a round robin needs at least {k} bots")
    rng = random.Random(derive_seed(seed, "schedule", "round_robin"))
    if math.comb(n, k) <= max_matches:
        groups = _complete_design(field, k, rounds, rng)
    else:
        groups = _covering_design(field, k, rounds, min_meetings, rng)
    leaders = _balance_leaders([members for _, members in groups], rng)
    rows = [
        (round_, _rotate_to(members, leader))
        for (round_, members), leader in zip(groups, leaders, strict=True)
    ]
    return _number("round_robin", seed, rows)


def team_round_robin(teams: Sequence[str], *, seed: int, rounds: int = 1) -> list[MatchPlan]:
    """Two teams per match, entrants ``(a, b, a, b)``; every pair of teams meets once per round
    and every team holds seats 0/2 in half its matches (give or take one half)."""
    ids = _check_ids(teams, "team")
    _check_int("rounds", rounds, 1)
    _check_int("seed", seed, None)
    if len(ids) < 2:
        raise ValueError(f"a team round robin needs at least 2 teams, got {len(ids)}")
    rng = random.Random(derive_seed(seed, "schedule", "team_round_robin"))
    pairs = list(combinations(ids, 2))
    rng.shuffle(pairs)
    first = _balance_leaders(pairs, rng)
    rows: list[tuple[int, tuple[str, ...]]] = []
    for round_ in range(rounds):
        order = list(range(len(pairs)))
        rng.shuffle(order)
        for p in order:
            a, b = pairs[p]
            home = first[p]
            away = b if home == a else a
            if round_ % 2:
                home, away = away, home
            rows.append((round_, (home, away, home, away)))
    return _number("team_round_robin", seed, rows)


def gauntlet(
    new_bot: str, field: Sequence[str], seats: int, *, seed: int, rounds: int = 1
) -> list[MatchPlan]:
    """The new bot against the field, ``seats - 1`` field bots a match, every field bot meeting it
    exactly equally often (docs/scheduling.md says how many matches that takes)."""
    others = _check_ids(field, "field bot")
    _check_int("seats", seats, 2)
    _check_int("rounds", rounds, 1)
    _check_int("seed", seed, None)
    if not isinstance(new_bot, str) or not new_bot:
        raise ValueError(f"the new bot's id must be a non-empty string, got {new_bot!r}")
    if new_bot in others:
        raise ValueError(f"the new bot {new_bot!r} is also in the field")
    m, per_match = len(others), seats - 1
    if m < per_match:
        raise ValueError(f"a {seats}-seat gauntlet needs at least {per_match} field bots, got {m}")
    matches_per_round = m // math.gcd(m, per_match)
    rng = random.Random(derive_seed(seed, "schedule", "gauntlet"))
    rows: list[tuple[int, tuple[str, ...]]] = []
    for round_ in range(rounds):
        circle = list(others)
        rng.shuffle(circle)
        for j in range(matches_per_round):
            opponents = [circle[(j * per_match + i) % m] for i in range(per_match)]
            seat = len(rows) % seats
            rows.append((round_, (*opponents[:seat], new_bot, *opponents[seat:])))
    return _number("gauntlet", seed, rows)


# --- designs ----------------------------------------------------------------------------------


def _complete_design(
    field: tuple[str, ...], k: int, rounds: int, rng: random.Random
) -> list[tuple[int, tuple[str, ...]]]:
    """Every k-subset once per round, in shuffled order, each in a random cyclic seat order."""
    groups: list[tuple[int, tuple[str, ...]]] = []
    for round_ in range(rounds):
        subsets = [list(subset) for subset in combinations(field, k)]
        rng.shuffle(subsets)
        for members in subsets:
            rng.shuffle(members)
            groups.append((round_, tuple(members)))
    return groups


def _covering_design(
    field: tuple[str, ...], k: int, rounds: int, min_meetings: int, rng: random.Random
) -> list[tuple[int, tuple[str, ...]]]:
    """Greedy resolvable passes until every pair has met ``min_meetings`` times per round."""
    n = len(field)
    per_pass = -(-n // k)
    fillers = per_pass * k - n
    met = [[0] * n for _ in range(n)]
    played = [0] * n
    groups: list[tuple[int, tuple[str, ...]]] = []

    for round_ in range(rounds):
        target = min_meetings * (round_ + 1)
        need = [sum(met[i][j] < target for j in range(n) if j != i) for i in range(n)]
        deficit = sum(max(0, target - met[i][j]) for i, j in combinations(range(n), 2))

        def meet(group: Sequence[int], target: int = target, need: list[int] = need) -> int:
            """Record a match; return by how much it lowered the deficit (meetings still owed)."""
            owed = 0
            for a, b in combinations(group, 2):
                owed += met[a][b] < target
                met[a][b] += 1
                met[b][a] += 1
                if met[a][b] == target:
                    need[a] -= 1
                    need[b] -= 1
            for bot in group:
                played[bot] += 1
            return owed

        while deficit > 0:
            before = deficit
            for group in _one_pass(n, k, per_pass, fillers, met, played, need, target, rng):
                deficit -= meet(group)
                members = [field[i] for i in group]
                rng.shuffle(members)
                groups.append((round_, tuple(members)))
            if deficit == before:
                # No owed meeting was played (possible only when n == k + 1): one match around an
                # owed pair, topped up with the bots that have played least, guarantees progress.
                a = max(range(n), key=lambda i: need[i])
                b = next(j for j in range(n) if j != a and met[a][j] < target)
                rest = sorted((i for i in range(n) if i not in (a, b)), key=lambda i: played[i])
                group = [a, b, *rest[: k - 2]]
                deficit -= meet(group)
                members = [field[i] for i in group]
                rng.shuffle(members)
                groups.append((round_, tuple(members)))
    return groups


def _one_pass(
    n: int,
    k: int,
    per_pass: int,
    fillers: int,
    met: list[list[int]],
    played: list[int],
    need: list[int],
    target: int,
    rng: random.Random,
) -> Iterable[list[int]]:
    """One pass: ``per_pass`` groups of ``k``; every bot once, the ``fillers`` least played twice.
    Groups are yielded one at a time so the caller records each before the next is built."""
    order = list(range(n))
    rng.shuffle(order)
    copies = dict.fromkeys(order, 1)
    for bot in sorted(order, key=lambda i: played[i])[:fillers]:
        copies[bot] = 2
    for index in range(per_pass):
        group: list[int] = []
        if index == per_pass - 1:
            group = [bot for bot in order if copies[bot] > 0]
            assert len(group) == k, group
        owed = [0] * n  # per bot: members of the group it still owes a meeting
        seen = [0] * n  # per bot: its earlier meetings with members of the group
        while len(group) < k:
            candidates = [bot for bot in order if copies[bot] > 0 and bot not in group]
            if index == per_pass - 2:
                # A bot with both copies left must take one here, or the last group holds it twice.
                doubles = [bot for bot in candidates if copies[bot] == 2]
                if len(doubles) >= k - len(group):
                    candidates = doubles
            if not group:
                pick = max(candidates, key=lambda bot: need[bot])
            else:
                pick = max(candidates, key=lambda bot: (owed[bot], -seen[bot]))
            group.append(pick)
            row = met[pick]
            for bot in range(n):
                owed[bot] += row[bot] < target
                seen[bot] += row[bot]
        for bot in group:
            copies[bot] -= 1
        yield group


# --- seats and numbering ----------------------------------------------------------------------


def _balance_leaders(groups: Sequence[Sequence[str]], rng: random.Random) -> list[str]:
    """A leader (the bot to start at seat 0) for every group, each bot leading about equally.

    Greedy (the member with the fewest leads so far, ties by the seeded shuffle), then, while some
    bot leads two more than another, a lead moves along a chain of groups from a bot with more
    leads to one with two fewer. When every bot is in equally many groups the result is as even
    as possible: every bot leads ``floor`` or ``ceil`` of groups / bots times."""
    load: dict[str, int] = {}
    for group in groups:
        for bot in group:
            load.setdefault(bot, 0)
    leaders: list[str] = []
    for group in groups:
        members = list(dict.fromkeys(group))
        rng.shuffle(members)
        leader = min(members, key=lambda bot: load[bot])
        leaders.append(leader)
        load[leader] += 1

    led: dict[str, set[int]] = defaultdict(set)
    member_of: dict[str, list[int]] = defaultdict(list)
    for index, group in enumerate(groups):
        led[leaders[index]].add(index)
        for bot in dict.fromkeys(group):
            member_of[bot].append(index)

    while load and max(load.values()) - min(load.values()) > 1:
        found = _chain_down(groups, leaders, led, load) or _chain_up(leaders, member_of, load)
        if found is None:
            break
        moves, source, sink = found
        for index, new in moves:
            led[leaders[index]].discard(index)
            led[new].add(index)
            leaders[index] = new
        load[source] -= 1
        load[sink] += 1
    return leaders


_Chain = tuple[list[tuple[int, str]], str, str]
"""Moves ``(group index, new leader)``, the bot that loses a lead, the bot that gains one."""


def _chain_down(
    groups: Sequence[Sequence[str]], leaders: list[str], led: dict[str, set[int]], load: dict[str, int]
) -> _Chain | None:
    """From the bots with the most leads, a chain to a bot with at least two fewer."""
    high = max(load.values())
    starts = [bot for bot in load if load[bot] == high]
    parent: dict[str, tuple[str, int] | None] = dict.fromkeys(starts)
    queue = deque(starts)
    while queue:
        bot = queue.popleft()
        for index in sorted(led[bot]):
            for other in groups[index]:
                if other in parent:
                    continue
                parent[other] = (bot, index)
                if load[other] <= high - 2:
                    moves: list[tuple[int, str]] = []
                    step, sink = other, other
                    while (link := parent[step]) is not None:
                        previous, group = link
                        moves.append((group, step))
                        step = previous
                    return moves, step, sink
                queue.append(other)
    return None


def _chain_up(leaders: list[str], member_of: dict[str, list[int]], load: dict[str, int]) -> _Chain | None:
    """To the bots with the fewest leads, a chain from a bot with at least two more."""
    low = min(load.values())
    ends = [bot for bot in load if load[bot] == low]
    child: dict[str, tuple[str, int] | None] = dict.fromkeys(ends)
    queue = deque(ends)
    while queue:
        bot = queue.popleft()
        for index in member_of[bot]:
            other = leaders[index]
            if other in child:
                continue
            child[other] = (bot, index)  # ``other`` may hand group ``index`` to ``bot``
            if load[other] >= low + 2:
                moves: list[tuple[int, str]] = []
                step, source = other, other
                while (link := child[step]) is not None:
                    following, group = link
                    moves.append((group, following))
                    step = following
                return moves, source, step
            queue.append(other)
    return None


def _rotate_to(members: tuple[str, ...], leader: str) -> tuple[str, ...]:
    at = members.index(leader)
    return members[at:] + members[:at]


def _number(kind: str, seed: int, rows: Sequence[tuple[int, tuple[str, ...]]]) -> list[MatchPlan]:
    return [
        MatchPlan(entrants=entrants, seed=derive_seed(seed, "match", kind, index), round=round_, index=index)
        for index, (round_, entrants) in enumerate(rows)
    ]


def _check_ids(ids: Sequence[str], what: str) -> tuple[str, ...]:
    if isinstance(ids, str):
        raise ValueError(f"{what}s must be a sequence of ids, not the string {ids!r}")
    result = tuple(ids)
    for bot in result:
        if not isinstance(bot, str) or not bot:
            raise ValueError(f"{what} ids must be non-empty strings, got {bot!r}")
    repeated = sorted(bot for bot, count in Counter(result).items() if count > 1)
    if repeated:
        raise ValueError(f"duplicate {what} ids: {', '.join(repeated)}")
    return result


def _check_int(name: str, value: int, minimum: int | None) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
