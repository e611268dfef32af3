"""Ladder refit speed: ``python bench/ratings.py`` (``--results N`` for another size).

Writes simulated results (default 1,000,000 per game, 1,000 bots; kozel 2 vs 2 and edible
free-for-all) into an SQLite store in a temporary folder, then times what ``arena ladder GAME``
does: ``load_results`` and ``fit`` (goal: both together in at most 2 s), ``update`` with 1,000 more
results (goal: at most 100 ms) and a new bot's first match. The best of ``--repeat`` runs counts;
the first run, with numba's start, is printed too.

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

import numpy as np  # noqa: E402
from sqlalchemy import create_engine  # noqa: E402

from arena.games.registry import get_game  # noqa: E402
from arena.ratings.fit import fit, update  # noqa: E402
from arena.ratings.kernels import COMPILED  # noqa: E402
from arena.ratings.load import load_results  # noqa: E402
from arena.ratings.model import ELO_PER_NAT, Z95, Ladder  # noqa: E402
from arena.ratings.results import Results  # noqa: E402
from arena.ratings.simulate import simulate_ffa, simulate_teams  # noqa: E402
from arena.store.models import Base  # noqa: E402

REFIT_GOAL_S = 2.0
UPDATE_GOAL_S = 0.1
GAMES = ("kozel", "edible")


def simulate(game: str, theta: np.ndarray, results: int, per_match: int, seed: int) -> Results:
    """``results`` outcomes in whole matches (the last one cut short)."""
    rng = np.random.default_rng(seed)
    matches = -(-results // per_match)
    if game == "kozel":
        out = simulate_teams(theta, matches, per_match, rng, draw_nu=0.2, duplicate=True, luck=0.3)
    else:
        out = simulate_ffa(
            theta, matches, per_match, range(2, 9), rng, tail_tie=0.2, pair_tie=0.1, duplicate=True, luck=0.3
        )
    return out.take(np.arange(results))


def first_version(game: str, n_bots: int) -> int:
    """Bot version ids: 1..n for the first game, n+1..2n for the second."""
    return 1 + GAMES.index(game) * n_bots


def write(db: Path, games: dict[str, Results], n_bots: int, per_match: int) -> None:
    """The schema, then bots, versions, a tournament and done matches per game, and every outcome
    (executemany on one connection; JSON written the way SQLAlchemy writes it)."""
    engine = create_engine(f"sqlite:///{db}")
    Base.metadata.create_all(engine)
    engine.dispose()
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=OFF")
    now = "2025-01-01 00:00:00.000000"
    next_match = 1
    formats = {n: "[" + ", ".join(["%d"] * n) + "]" for n in range(1, 9)}
    for tournament, (game, results) in enumerate(games.items(), start=1):
        first = first_version(game, n_bots)
        versions = range(first, first + n_bots)
        connection.executemany(
            "INSERT INTO bots (id, owner_id, game, name, created_at) VALUES (?, NULL, ?, ?, ?)",
            [(v, game, f"bot{v}", now) for v in versions],
        )
        connection.executemany(
            "INSERT INTO bot_versions (id, bot_id, spec, entry, validated, validation_log, created_at)"
            " VALUES (?, ?, ?, '', 1, '', ?)",
            [(v, v, f"builtin:bot{v}", now) for v in versions],
        )
        connection.execute(
            "INSERT INTO tournaments (id, game, game_version, config, kind, games_per_match, duplicate,"
            " seed, created_by, created_at, rated, seed_chosen)"
            " VALUES (?, ?, ?, '{}', 'round_robin', ?, 1, 1, NULL, ?, 1, 0)",
            (tournament, game, get_game(game).version, per_match, now),  # rated: the ladder reads it
        )
        n_matches = -(-results.n_games // per_match)
        connection.executemany(
            'INSERT INTO matches (id, tournament_id, "index", seed, entrants, status, attempts, worker,'
            " started_at, finished_at, error, replay_blob, log_blobs, play_seconds, decide_seconds)"
            " VALUES (?, ?, ?, 0, '[]', 'done', 1, 'bench', ?, ?, '', '', '[]', 0, 0)",
            [(next_match + i, tournament, i, now, now) for i in range(n_matches)],
        )
        seats = (results.bots + first).tolist()
        ranks = results.ranks.tolist()
        assert results.clusters is not None
        deals = (results.clusters % per_match).tolist()
        starts = results.offsets.tolist()
        statuses = {n: json.dumps(["ok"] * n) for n in range(1, 9)}
        rows = []
        for g in range(results.n_games):
            lo, hi = starts[g], starts[g + 1]
            n = hi - lo
            row = (next_match + g // per_match, game, g % per_match, deals[g])
            rows.append(
                (*row, formats[n] % tuple(seats[lo:hi]), formats[n] % tuple(ranks[lo:hi]), statuses[n])
            )
        connection.executemany(
            "INSERT INTO game_outcomes (match_id, game, game_index, deal, seats, ranks, statuses)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        next_match += n_matches
    connection.commit()
    connection.close()


def timed(engine: object, game: str) -> tuple[float, float, float, Results, Ladder]:
    """Wall time of the read and of read + fit, and CPU time of both."""
    started, cpu = time.perf_counter(), time.process_time()
    results = load_results(engine, game)  # type: ignore[arg-type]
    read = time.perf_counter() - started
    ladder = fit(results)
    return read, time.perf_counter() - started, time.process_time() - cpu, results, ladder


def kernel_counts() -> tuple[int, int]:
    """Compiled kernels so far in this process: (compiled now, loaded from the disk cache)."""
    compiled = sum(sum(kernel.stats.cache_misses.values()) for kernel in COMPILED)
    loaded = sum(sum(kernel.stats.cache_hits.values()) for kernel in COMPILED)
    return compiled, loaded


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--results", type=int, default=1_000_000, help="outcomes per game (default 1M)")
    parser.add_argument("--bots", type=int, default=1000, help="bots per game (default 1000)")
    parser.add_argument("--games-per-match", type=int, default=40, help="games per match (default 40)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs; the best counts (default 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--db", type=Path, help="keep the database here (reused if it exists)")
    args = parser.parse_args()
    theta = np.random.default_rng(args.seed).normal(0.0, 1.0, size=args.bots)
    total = args.results + 1000
    print(f"ratings benchmark: {args.results:,} results per game, {args.bots} bots, {os.cpu_count()} cpus")
    with tempfile.TemporaryDirectory() as folder:
        db = args.db or Path(folder) / "arena.db"
        started = time.perf_counter()
        games = {
            game: simulate(game, theta, total, args.games_per_match, args.seed + i)
            for i, game in enumerate(GAMES)
        }
        if not db.exists():
            stored = {game: results.take(np.arange(args.results)) for game, results in games.items()}
            write(db, stored, args.bots, args.games_per_match)
            print(f"wrote {2 * args.results:,} outcomes in {time.perf_counter() - started:.1f} s")
        engine = create_engine(f"sqlite:///{db}")
        for game, simulated in games.items():
            print(
                f"\n{game}: {args.results:,} results, {np.diff(simulated.offsets).mean():.2f} seats per game"
            )
            before = kernel_counts()
            runs = [timed(engine, game)]
            compiled, from_cache = (now - then for now, then in zip(kernel_counts(), before, strict=True))
            print(
                f"  first run {runs[0][1]:.3f} s, including the numba kernels' first calls in this process"
                f" (numba imported if not yet): {compiled} compiled, {from_cache} loaded from the disk cache"
            )
            runs += [timed(engine, game) for _ in range(args.repeat - 1)]
            read, whole, cpu, loaded, ladder = min(runs, key=lambda run: run[1])
            print(
                f"  best of {len(runs)}: read {read:.3f} s + fit {whole - read:.3f} s = {whole:.3f} s"
                f" (cpu {cpu:.3f} s)"
                f"  goal {REFIT_GOAL_S:.0f} s: ratio {whole / REFIT_GOAL_S:.2f}"
                f"  [load average {os.getloadavg()[0]:.2f}; newton iterations {ladder.iterations}]"
            )
            report_accuracy(ladder, loaded, theta, game, args.bots)
            extra = simulated.take(np.arange(args.results, total))
            assert loaded.bot_ids is not None
            versions = first_version(game, args.bots) + extra.bots
            extra = Results(
                offsets=extra.offsets,
                bots=np.searchsorted(loaded.bot_ids, versions),
                ranks=extra.ranks,
                teams=extra.teams,
                clusters=extra.clusters,
                bot_ids=loaded.bot_ids,
            )
            times = []
            updated = ladder
            for _ in range(args.repeat):
                started = time.perf_counter()
                updated = update(ladder, extra)
                times.append(time.perf_counter() - started)
            print(
                f"  +1,000 results (update): {min(times) * 1000:.1f} ms"
                f"  goal {UPDATE_GOAL_S * 1000:.0f} ms: ratio {min(times) / UPDATE_GOAL_S:.2f}"
            )
            refit = fit(loaded.concat(extra))
            elo_gap = np.max(np.abs(updated.elo - refit.elo))
            width_gap = np.max(np.abs(updated.halfwidth - refit.halfwidth))
            print(
                f"  update vs a full refit of all {total:,}:"
                f" max |dElo| {elo_gap:.3f}, max |d half-width| {width_gap:.3f}"
            )
            match = newcomer_match(game, theta, loaded, args.games_per_match, args.seed)
            times = []
            for _ in range(args.repeat):
                started = time.perf_counter()
                landed = update(ladder, match)
                times.append(time.perf_counter() - started)
            gap = np.abs(landed.elo - fit(match.concat(loaded)).elo)
            print(
                f"  a new bot's first match, {args.games_per_match} games (update):"
                f" {min(times) * 1000:.1f} ms; vs a full refit: the new bot's |dElo| {gap[-1]:.3f},"
                f" the others' max {np.max(gap[:-1]):.3f}"
            )


def newcomer_match(game: str, theta: np.ndarray, loaded: Results, per_match: int, seed: int) -> Results:
    """A match of ``per_match`` games between a new bot (its true strength drawn like the others') and
    three bots of the ladder, played like the game's other matches; the bots numbered as in ``loaded``,
    the new one last."""
    assert loaded.bot_ids is not None
    rng = np.random.default_rng(seed)
    n = len(loaded.bot_ids)
    entrants = np.array([n, *rng.choice(n, size=3, replace=False)])
    strength = np.append(theta[loaded.bot_ids - first_version(game, len(theta))], rng.normal())[entrants]
    if game == "kozel":
        match = simulate_teams(strength, 1, per_match, rng, draw_nu=0.2, duplicate=True, luck=0.3)
    else:
        match = simulate_ffa(
            strength, 1, per_match, 4, rng, tail_tie=0.2, pair_tie=0.1, duplicate=True, luck=0.3
        )
    return Results(
        offsets=match.offsets,
        bots=entrants[match.bots],
        ranks=match.ranks,
        teams=match.teams,
        clusters=match.clusters,
        bot_ids=np.append(loaded.bot_ids, loaded.bot_ids.max() + 1),
    )


def report_accuracy(ladder: Ladder, loaded: Results, theta: np.ndarray, game: str, n_bots: int) -> None:
    assert loaded.bot_ids is not None
    truth = theta[loaded.bot_ids - first_version(game, n_bots)]
    truth = ELO_PER_NAT * (truth - truth.mean())
    fitted = ladder.elo - ladder.elo.mean()
    z = (fitted - truth) / ladder.se
    print(
        f"  vs the truth: correlation {np.corrcoef(fitted, truth)[0, 1]:.5f},"
        f" RMSE {np.sqrt(np.mean((fitted - truth) ** 2)):.2f} Elo,"
        f" mean 95% half-width {np.mean(ladder.halfwidth):.2f} Elo"
        f" (model-based {np.mean(Z95 * ladder.model_se):.2f}),"
        f" z SD {z.std():.3f}, intervals covering the truth {np.mean(np.abs(z) < Z95):.3f}"
    )


if __name__ == "__main__":
    main()
