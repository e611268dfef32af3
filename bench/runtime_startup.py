"""Sandboxed start-up on the Python bot runtime: ``python bench/runtime_startup.py --baseline REV``.

Times from asking for the bots to both bots' first message (the runner's start-up: sandbox,
interpreter, the bot's own start, connection, Hello), on sandboxes the warm pool prepared ahead,
for two-seat edible matches of (a) a plain bot, the Python starter
(``sdk/examples/edible_starter.py``), in both seats, and (b) the trained starter
(``sdk/examples/edible_model/bot.py``), which imports numpy and onnxruntime, with a model of about
1 MB (the starter's network, with as many hidden units of random weights as make it so), against
the plain bot. Each run measures ``--rounds`` matches of each in a fresh process of its tree; runs
alternate between this tree and commit REV (``bench/interleave.py``), and (b) runs only in trees
that have the bot runtime. Prints the medians and the ratio to REV. Goals: (b) at most 150 ms
median; (a) within 10% of REV's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from interleave import ROOT, Figures, interleaved, median, paired, short, worktree

STARTER = ROOT / "sdk" / "examples" / "edible_starter.py"
MODEL_STARTER = ROOT / "sdk" / "examples" / "edible_model"
MODEL_BYTES = 2**20
"""The timed model's size, about: its hidden units are as many as make it so."""


def model_bot(folder: Path) -> Path:
    """The trained starter's code in ``folder``, with a model of about 1 MB; its bot file."""
    sys.path.insert(0, str(MODEL_STARTER))
    import numpy as np
    from train import export, initial

    from sdk.features import EDIBLE_ACTIONS, EDIBLE_FEATURES

    folder.mkdir()
    shutil.copy(MODEL_STARTER / "bot.py", folder / "bot.py")
    hidden = MODEL_BYTES // 4 // (EDIBLE_FEATURES + 1 + EDIBLE_ACTIONS)
    export(initial(hidden, np.random.default_rng(0)), folder / "model.onnx")
    return folder / "bot.py"


def measure(rounds: int, model: Path) -> Figures:
    """Median start-up of ``rounds`` matches of each bot, with ``arena`` from the tree under test."""
    from arena import loop
    from arena.games.registry import get_game
    from arena.runner.terms import Limits
    from arena.sandbox.bubblewrap import BubblewrapSandbox
    from arena.sandbox.warm import POOL
    from arena.transport.process import play_match

    game = get_game("edible")
    sandbox = BubblewrapSandbox(warm=True)

    def startup_ms(bot: Path) -> float:
        """The start-up (ms) of a match of ``bot`` against the plain bot."""
        deadline = time.monotonic() + 30
        while POOL.ready() < 2 and time.monotonic() < deadline:  # the first match teaches the pool
            time.sleep(0.01)
        specs = [str(bot), str(STARTER)]
        record = loop.run(
            play_match(game, game.config_type(), specs, sandbox, games=1, seed=1, limits=Limits())
        )
        assert all(status.value == "ok" for status in record.games[0].statuses), record.logs
        return record.startup_s * 1000

    import arena.manifest

    bots = {"plain": STARTER}
    if hasattr(arena.manifest, "python_runtime"):  # a tree with the bot runtime
        bots["model"] = model
    for bot in bots.values():
        startup_ms(bot)
    times: dict[str, list[float]] = {name: [] for name in bots}
    for _ in range(rounds):
        for name, bot in bots.items():
            times[name].append(startup_ms(bot))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD", help="the commit to compare with (default HEAD)")
    parser.add_argument("--rounds", type=int, default=15, help="matches of each bot per run (default 15)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per tree, alternating (default 3)")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.rounds, args.measure)))
        return
    # A baseline tree that has the bot runtime uses this one's (a worktree has none built).
    os.environ.setdefault("ARENA_RUNTIMES", str(ROOT / ".runtimes"))
    folder = Path(tempfile.mkdtemp(prefix="arena-runtime-bench-"))
    try:
        bot = model_bot(folder / "model_bot")
        size = (folder / "model_bot" / "model.onnx").stat().st_size
        script = Path(__file__).resolve()
        arguments = ["--rounds", str(args.rounds), "--measure", str(bot)]
        with worktree(args.baseline) as tree:
            runs = interleaved({"this": ROOT, "baseline": tree}, script, arguments, args.repeats)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    this, baseline = runs["this"], runs["baseline"]
    rev = short(args.baseline)
    print(f"start-up, 2 seats in bubblewrap, prepared ahead: medians of {args.repeats} runs of {args.rounds}")
    plain = median(this, "plain"), median(baseline, "plain")
    print(f"  (a) plain bot:        this {plain[0]:6.1f} ms   {rev} {plain[1]:6.1f} ms")
    print(f"      this / {rev}: {paired(this, 'plain', baseline, 'plain'):.2f}   goal: at most 1.10")
    line = f"  (b) numpy + onnxruntime, a {size / 1e6:.2f} MB model: this {median(this, 'model'):6.1f} ms"
    if "model" in baseline[0]:
        line += f"   {rev} {median(baseline, 'model'):6.1f} ms"
    print(line)
    print("      goal: at most 150 ms")


if __name__ == "__main__":
    main()
