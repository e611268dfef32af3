"""Living-ladder matchmaking: ``python bench/ladder.py`` (``--quick``, ``--line two|four``, ``--seeds``).

A simulated living ladder of bots of known strength (``--bots``, ``--sd``, ``--clusters``,
``--gap``, ``--start``) is played by information-driven matchmaking (``Matchmaker.pick``) and by
random pairing (``Matchmaker.pick_random``), on the same truth and arrivals, for each seed. Per line
it prints the games each needs to a Spearman correlation of 0.95 and to 95% of the bots out of
provisional, their ratio (goal: at most 0.70) with a bootstrap interval, the intervals' coverage, the
fitted spread, and the times of an update, a refit and a pick.

The method in full: docs/benchmarks.md; its figures: docs/matchmaking.md.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402
from scipy.stats import spearmanr  # type: ignore[import-untyped]  # noqa: E402

from arena.ladder.matchmaking import Entrant, Fairness, Matchmaker, ratings_from_ladder  # noqa: E402
from arena.ratings.fit import fit, stale, update  # noqa: E402
from arena.ratings.model import ELO_PER_NAT, Z95, Ladder  # noqa: E402
from arena.ratings.results import FloatArray, RatingsError, Results  # noqa: E402

SPEARMAN_GOAL = 0.95
SETTLED_SHARE = 0.95
RATIO_GOAL = 0.70
POLICIES = ("information", "random")


@dataclass(frozen=True)
class Line:
    name: str
    seats: int
    arrive_every: int
    """Matches between arrivals."""


LINES = (Line("two seats", 2, 4), Line("four-seat free-for-all", 4, 1))


@dataclass
class Run:
    """One policy on one seed."""

    to_spearman: int | None = None
    to_settled: int | None = None
    bots: int = 0
    covered_live: int = 0
    covered_refit: int = 0
    spread: float = 0.0
    """SD of the refitted Elo over SD of the true Elo, at the end."""
    prior_games: float = 0.0
    """The refit's virtual games per bot, at the end."""
    failed_updates: int = 0
    stale_refits: int = 0
    """Refits because an update was ``stale`` (a bot moved too far from the last fit)."""
    update_s: list[float] = field(default_factory=list)
    refit_s: list[float] = field(default_factory=list)
    pick_s: list[float] = field(default_factory=list)
    view_s: list[float] = field(default_factory=list)


def play(theta: FloatArray, group: tuple[int, ...], games: int, rng: np.random.Generator) -> Results:
    """``games`` games of the bots in ``group`` (one seat each): Plackett-Luce finish orders."""
    k = len(group)
    bots = np.array(group, dtype=np.int64)
    utility = theta[bots][None, :] + rng.gumbel(size=(games, k))
    ranks = np.argsort(np.argsort(-utility, axis=1), axis=1)
    return Results(
        offsets=np.arange(0, games * k + 1, k, dtype=np.int64),
        bots=np.tile(bots, games),
        ranks=ranks.reshape(-1).astype(np.int64),
    )


def truth(args: argparse.Namespace, seed: int) -> FloatArray:
    """The true log-strengths of a seed's field: ``--clusters`` clusters (bot ``i`` in cluster ``i mod
    clusters``, so that arrivals alternate) whose centres are ``--gap`` Elo apart, each normal of SD
    ``--sd`` Elo about its centre."""
    rng = np.random.default_rng([seed, 0])
    centre = (np.arange(args.bots) % args.clusters - (args.clusters - 1) / 2.0) * args.gap
    strengths: FloatArray = (centre + rng.normal(0.0, args.sd, size=args.bots)) / ELO_PER_NAT
    return strengths


def covered(ladder: Ladder, theta: FloatArray) -> int:
    """How many bots' 95% intervals cover their true Elo (as a difference from the rated bots' mean)."""
    rated = ladder.games > 0
    truth = ELO_PER_NAT * (theta - theta[rated].mean())
    fitted = ladder.elo - ladder.elo[rated].mean()
    return int(np.sum((np.abs(fitted - truth) <= Z95 * ladder.se)[rated]))


def simulate(policy: str, line: Line, theta: FloatArray, args: argparse.Namespace, seed: int) -> Run:
    n = len(theta)
    rng = np.random.default_rng([seed, 1])
    picker = random.Random(seed)
    matchmaker = Matchmaker(seats=line.seats, games=args.games)
    fairness = Fairness()
    everything = Results(np.zeros(1, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    arrived = args.start

    def refit(n_bots: int) -> Ladder:
        return fit(everything, n_bots, prior_games=args.prior_games)

    ladder = refit(arrived)
    run = Run()
    games = matches = 0
    while games < args.max_games and (run.to_spearman is None or run.to_settled is None):
        entrants = [Entrant(key=bot, owner=bot) for bot in range(arrived)]
        if policy == "information":
            started = time.perf_counter()
            ratings = ratings_from_ladder(ladder, ladder.component)
            picked = time.perf_counter()
            pick = matchmaker.pick(entrants, ratings, fairness, picker)
            run.pick_s.append(time.perf_counter() - picked)
            run.view_s.append(picked - started)
            assert pick is not None
            group, fairness = pick.entrants, pick.fairness
        else:
            chosen = matchmaker.pick_random(entrants, picker)
            assert chosen is not None
            group = chosen
        landed = play(theta, group, args.games, rng)
        everything = everything.concat(landed)
        games += landed.n_games
        matches += 1
        started = time.perf_counter()
        try:
            ladder = update(ladder, landed, arrived)
            run.update_s.append(time.perf_counter() - started)
        except (ZeroDivisionError, RatingsError):  # update fails now and then on main: counted, refitted
            run.failed_updates += 1
            ladder = refit(arrived)
        if matches % args.refit_every == 0 or stale(ladder):
            run.stale_refits += matches % args.refit_every != 0
            started = time.perf_counter()
            ladder = refit(arrived)
            run.refit_s.append(time.perf_counter() - started)
        if arrived == n:
            if run.to_spearman is None and spearmanr(ladder.theta, theta).statistic >= SPEARMAN_GOAL:
                run.to_spearman = games
            if run.to_settled is None and np.sum(~ladder.provisional) >= SETTLED_SHARE * n:
                run.to_settled = games
        elif matches % line.arrive_every == 0:
            arrived += 1
    run.bots = ladder.n_bots
    run.covered_live = covered(ladder, theta[: ladder.n_bots])
    refitted = refit(ladder.n_bots)
    run.covered_refit = covered(refitted, theta[: ladder.n_bots])
    run.spread = float(np.std(refitted.elo) / np.std(ELO_PER_NAT * theta[: ladder.n_bots]))
    run.prior_games = refitted.prior_games
    return run


def median_games(values: list[int | None], cap: int) -> int:
    """The median, runs that never got there counted as ``cap``."""
    return round(statistics.median(cap if value is None else value for value in values))


def bootstrap(info: list[int | None], rand: list[int | None], cap: int) -> tuple[float, float]:
    """A 90% interval of the ratio of the medians (information / random): the seeds resampled with
    replacement (a seed's two runs together), 2,000 times, with a fixed generator."""
    pairs = np.array(
        [[cap if i is None else i, cap if r is None else r] for i, r in zip(info, rand, strict=True)]
    )
    draws = np.random.default_rng(0).integers(0, len(pairs), size=(2000, len(pairs)))
    medians = np.median(pairs[draws], axis=1)
    low, high = np.percentile(medians[:, 0] / medians[:, 1], [5, 95])
    return float(low), float(high)


def percentiles(seconds: list[float]) -> str:
    ms = np.array(seconds) * 1000.0
    return f"median {np.median(ms):.2f} ms, p95 {np.percentile(ms, 95):.2f} ms"


def report(runs: dict[str, list[Run]], cap: int) -> None:
    for what, attribute in (("Spearman 0.95", "to_spearman"), ("95% out of provisional", "to_settled")):
        values = {policy: [getattr(run, attribute) for run in runs[policy]] for policy in POLICIES}
        missed = sum(value is None for policy in POLICIES for value in values[policy])
        info, rand = (median_games(values[policy], cap) for policy in POLICIES)
        ratios = sorted(
            (cap if i is None else i) / (cap if r is None else r)
            for i, r in zip(values["information"], values["random"], strict=True)
        )
        low, high = bootstrap(values["information"], values["random"], cap)
        print(
            f"  games to {what}: information {info:,}, random {rand:,}"
            + (f" ({missed} runs did not get there by {cap:,}: counted as {cap:,})" if missed else "")
            + f"; ratio {info / rand:.3f} (90% bootstrap {low:.3f} to {high:.3f};"
            f" seeds {ratios[0]:.2f} to {ratios[-1]:.2f}),"
            f" goal <= {RATIO_GOAL:.2f}: {'met' if info / rand <= RATIO_GOAL else 'NOT met'}"
        )
    for policy in POLICIES:
        bots = sum(run.bots for run in runs[policy])
        live = sum(run.covered_live for run in runs[policy]) / bots
        refit = sum(run.covered_refit for run in runs[policy]) / bots
        spread = statistics.mean(run.spread for run in runs[policy])
        prior_games = [run.prior_games for run in runs[policy]]
        print(
            f"  at the end, {policy}: 95% intervals covering the truth {live:.3f} (live),"
            f" {refit:.3f} (refitted); spread of the refitted Elo / the true {spread:.3f};"
            f" the prior's virtual games {statistics.mean(prior_games):.2f}"
            f" ({min(prior_games):.2f} to {max(prior_games):.2f})"
        )
    every = [run for policy in POLICIES for run in runs[policy]]
    failed = sum(run.failed_updates for run in every)
    stale_refits = sum(run.stale_refits for run in every)
    landings = sum(len(run.update_s) + run.failed_updates for run in every)
    print(
        f"  update per landing match: {percentiles([s for run in every for s in run.update_s])}"
        + (f"; update failed on {failed} landings (a full refit took its place)" if failed else "")
        + f"; stale (refitted at once) after {stale_refits} of {landings:,}"
    )
    print(f"  refit: {percentiles([s for run in every for s in run.refit_s])}")
    picks = runs["information"]
    print(f"  pick: {percentiles([s for run in picks for s in run.pick_s])}", end="")
    print(f"; its ratings (the covariance): {percentiles([s for run in picks for s in run.view_s])}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", type=int, default=100, help="bots in all (default 100)")
    parser.add_argument("--start", type=int, default=60, help="bots at the start (default 60)")
    parser.add_argument("--sd", type=float, default=250.0, help="SD of the true ratings, Elo (default 250)")
    parser.add_argument(
        "--clusters", type=int, default=1, help="clusters of the true ratings (default 1: one normal field)"
    )
    parser.add_argument(
        "--gap", type=float, default=300.0, help="Elo between neighbouring clusters' centres (default 300)"
    )
    parser.add_argument("--games", type=int, default=12, help="games per match (default 12)")
    parser.add_argument("--refit-every", type=int, default=20, help="matches between refits (default 20)")
    parser.add_argument("--seeds", type=int, default=16, help="seeds (default 16)")
    parser.add_argument(
        "--prior-games",
        type=float,
        help="the fit's virtual games per bot (default: estimated from the field, as the fit's default)",
    )
    parser.add_argument("--max-games", type=int, default=40_000, help="a run's cap (default 40,000)")
    parser.add_argument("--quick", action="store_true", help="3 seeds, the two-seat line only")
    parser.add_argument("--line", choices=("two", "four"), help="that line only (default: both)")
    args = parser.parse_args()
    seeds = 3 if args.quick else args.seeds
    lines = LINES[:1] if args.quick or args.line == "two" else LINES[1:] if args.line == "four" else LINES
    print(
        f"living ladder: {args.bots} bots (true ratings SD {args.sd:.0f} Elo"
        + (f" about {args.clusters} centres {args.gap:.0f} Elo apart" if args.clusters > 1 else "")
        + f", one owner each), {args.start}"
        f" at the start; {args.games} games a match; update per landing match, refit every"
        f" {args.refit_every} matches; {seeds} seeds; {os.cpu_count()} cpus"
    )
    for line in lines:
        started = time.perf_counter()
        runs: dict[str, list[Run]] = {policy: [] for policy in POLICIES}
        for seed in range(seeds):
            theta = truth(args, seed)
            for policy in POLICIES:
                runs[policy].append(simulate(policy, line, theta, args, seed))
        print(
            f"\n{line.name} ({line.seats} seats, a bot arriving every {line.arrive_every} match"
            f"{'es' if line.arrive_every > 1 else ''}): {time.perf_counter() - started:.0f} s,"
            f" load average {os.getloadavg()[0]:.2f}"
        )
        report(runs, args.max_games)


if __name__ == "__main__":
    main()
