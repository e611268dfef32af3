"""Web latency under load: ``python bench/web.py`` (``--results N``, ``--bots N``, ``--seconds S``,
``--concurrency C`` for other sizes).

Fills an SQLite store with 1,000 edible bots and 1,000,000 results, starts ``arena serve`` and drives
the ladder page, the ladder JSON API and a bot page with keep-alive connections. It prints p50, p95
and p99 latency and requests per second per endpoint; the goal is a p95 of at most 50 ms for the
ladder page and the JSON API.

The method in full: docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import numpy as np  # noqa: E402
from ratings import first_version, simulate, write  # noqa: E402

from arena.ratings.ladder import refit  # noqa: E402
from arena.store.db import Store  # noqa: E402
from arena.store.migrate import alembic_config  # noqa: E402

P95_GOAL_MS = 50.0


def fill(home: Path, bots: int, results: int, seed: int) -> None:
    from alembic import command

    db = home / "arena.db"
    theta = np.random.default_rng(seed).normal(0.0, 1.0, bots)
    started = time.perf_counter()
    write(db, {"edible": simulate("edible", theta, results, 40, seed)}, bots, 40)
    command.stamp(alembic_config(f"sqlite:///{db}"), "head")
    store = Store(f"sqlite:///{db}")
    with store.session() as session:
        refit(store.engine, session, "edible")
    store.dispose()
    print(f"store: {bots} bots, {results:,} results, refitted, in {time.perf_counter() - started:.1f} s")


async def _worker(port: int, path: str, until: float, latencies: list[float]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    try:
        while time.perf_counter() < until:
            sent = time.perf_counter()
            writer.write(request)
            status = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - sent)
            if not status.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(f"{path}: {status.decode().strip()}")
    finally:
        writer.close()


async def _load(port: int, path: str, seconds: float, concurrency: int) -> list[float]:
    latencies: list[float] = []
    until = time.perf_counter() + seconds
    await asyncio.gather(*(_worker(port, path, until, latencies) for _ in range(concurrency)))
    return latencies


def measure(port: int, path: str, seconds: float, concurrency: int) -> tuple[float, float, float, float]:
    asyncio.run(_load(port, path, 2.0, concurrency))  # warm-up (caches, connections, JIT-free Python)
    started = time.perf_counter()
    latencies = np.array(asyncio.run(_load(port, path, seconds, concurrency))) * 1000.0
    elapsed = time.perf_counter() - started
    p50, p95, p99 = np.percentile(latencies, [50, 95, 99])
    return float(p50), float(p95), float(p99), len(latencies) / elapsed


def serve(home: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "ARENA_HOME": str(home)}
    env.pop("ARENA_DATABASE_URL", None)
    arena = Path(sys.executable).with_name("arena")
    process = subprocess.Popen([str(arena), "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("arena serve did not start")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--results", type=int, default=1_000_000)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--port", type=int, default=8791)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-bench-web-") as folder:
        home = Path(folder)
        fill(home, args.bots, args.results, args.seed)
        process = serve(home, args.port)
        try:
            print(f"load: {args.concurrency} keep-alive connections, {args.seconds:.0f} s per endpoint")
            print(f"{'endpoint':<28} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'req/s':>8}  p95/goal")
            for label, path, goal in (
                ("ladder page", "/ladder/edible", True),
                ("ladder JSON API", "/api/v1/ladders/edible", True),
                ("bot page", f"/bots/{first_version('edible', args.bots)}", False),
            ):
                p50, p95, p99, rate = measure(args.port, path, args.seconds, args.concurrency)
                ratio = f"{p95 / P95_GOAL_MS:.2f}" + (
                    " (goal met)" if p95 <= P95_GOAL_MS else " (goal NOT met)"
                )
                print(
                    f"{label + ' ' + path:<28} {p50:>8.1f} {p95:>8.1f} {p99:>8.1f} {rate:>8.0f}  "
                    + (ratio if goal else "-")
                )
        finally:
            process.terminate()
            process.wait(timeout=20)
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
