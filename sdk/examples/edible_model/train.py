"""Trains an edible policy through the environment: ``python sdk/examples/edible_model/train.py``.

The learner plays one seat of two-seat edible in ``SeatEnv`` (``sdk.envs.single``), many tables
side by side, against ``builtin:heuristic`` and ``builtin:random`` in turn (``--opponents``), and
learns by PPO (clipped policy gradient with a value baseline; numpy alone, Adam). What it sees is
the environment's vector and action mask, ``sdk.features``' functions, which the bot (``bot.py``)
calls in the sandbox too. Every ``--report`` decisions it plays its greedy policy against each
opponent and prints the scores. It stops after ``--steps`` decisions or ``--minutes``, whichever
comes first, and writes ``model.onnx`` beside this file: features -> ReLU layers -> a score per
action. The ``onnx`` package (the dev extra) writes the file; the bot needs only numpy and
onnxruntime.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from sdk.envs.single import SeatEnv
from sdk.features import EDIBLE_ACTIONS as ACTIONS
from sdk.features import EDIBLE_FEATURES as FEATURES

HERE = Path(__file__).resolve().parent

Array = npt.NDArray[np.float32]
Weights = list[Array]
"""Weight and bias of each hidden layer, then of the policy head, then of the value head."""


def initial(hidden: int | list[int], rng: np.random.Generator) -> Weights:
    """Random weights for hidden layers of ``hidden`` units (one layer if a number)."""
    weights: Weights = []
    sizes = [FEATURES, *([hidden] if isinstance(hidden, int) else hidden)]
    for inputs, outputs in itertools.pairwise(sizes):
        weights += [(rng.standard_normal((inputs, outputs)) * np.sqrt(2 / inputs)).astype(np.float32)]
        weights += [np.zeros(outputs, dtype=np.float32)]
    weights += [(rng.standard_normal((sizes[-1], ACTIONS)) * 0.01).astype(np.float32)]
    weights += [np.zeros(ACTIONS, dtype=np.float32)]
    weights += [np.zeros((sizes[-1], 1), dtype=np.float32), np.zeros(1, dtype=np.float32)]
    return weights


def forward(weights: Weights, x: Array) -> tuple[list[Array], Array, Array]:
    """Each layer's output (the input first), the action scores and the value of the rows of ``x``."""
    layers = [x]
    for index in range(0, len(weights) - 4, 2):
        layers.append(np.maximum(layers[-1] @ weights[index] + weights[index + 1], 0.0))
    top = layers[-1]
    return layers, top @ weights[-4] + weights[-3], (top @ weights[-2] + weights[-1])[:, 0]


def masked_softmax(scores: Array, masks: npt.NDArray[np.int8]) -> Array:
    scores = np.where(masks > 0, scores, -1e9)
    scores = scores - scores.max(axis=1, keepdims=True)
    probabilities = np.exp(scores) * (masks > 0)
    return probabilities / probabilities.sum(axis=1, keepdims=True)  # type: ignore[no-any-return]


class Adam:
    def __init__(self, weights: Weights, rate: float) -> None:
        self.rate, self.step = rate, 0
        self.moments = [np.zeros_like(w) for w in weights]
        self.squares = [np.zeros_like(w) for w in weights]

    def update(self, weights: Weights, gradients: list[Array]) -> None:
        self.step += 1
        beta1, beta2 = 0.9, 0.999
        for index, gradient in enumerate(gradients):
            self.moments[index] = beta1 * self.moments[index] + (1 - beta1) * gradient
            self.squares[index] = beta2 * self.squares[index] + (1 - beta2) * gradient**2
            corrected = self.moments[index] / (1 - beta1**self.step)
            scale = np.sqrt(self.squares[index] / (1 - beta2**self.step)) + 1e-8
            weights[index] -= (self.rate * corrected / scale).astype(np.float32)


@dataclass
class Batch:
    """Learner decisions of finished games: vector, mask, index played, its probability, the return."""

    vectors: list[Array] = field(default_factory=list)
    masks: list[npt.NDArray[np.int8]] = field(default_factory=list)
    taken: list[int] = field(default_factory=list)
    chance: list[float] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)


def ppo_update(weights: Weights, adam: Adam, batch: Batch, epochs: int, rng: np.random.Generator) -> float:
    """Clipped-surrogate PPO over ``batch``, minibatches of 512; the mean policy entropy."""
    x = np.stack(batch.vectors)
    masks = np.stack(batch.masks)
    taken = np.array(batch.taken)
    old = np.array(batch.chance, dtype=np.float32)
    returns = np.array(batch.returns, dtype=np.float32)
    clip, value_weight, entropy_weight = 0.2, 0.5, 0.01
    entropies = []
    for _ in range(epochs):
        order = rng.permutation(len(x))
        for start in range(0, len(x), 512):
            rows = order[start : start + 512]
            n = len(rows)
            layers, scores, values = forward(weights, x[rows])
            p = masked_softmax(scores, masks[rows])
            advantage = returns[rows] - values
            advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
            ratio = p[np.arange(n), taken[rows]] / old[rows]
            active = ~(((advantage > 0) & (ratio > 1 + clip)) | ((advantage < 0) & (ratio < 1 - clip)))
            logp = np.log(np.where(p > 0, p, 1.0))
            entropy = -(p * logp).sum(axis=1)
            entropies.append(entropy.mean())
            # d loss / d scores: the surrogate -A r, its gradient -A r (onehot - p), then -H's.
            onehot = np.zeros_like(p)
            onehot[np.arange(n), taken[rows]] = 1.0
            d_scores = -(active * advantage * ratio)[:, None] * (onehot - p)
            d_scores += entropy_weight * p * (logp + entropy[:, None])
            d_scores /= n
            d_values = (2 * value_weight * (values - returns[rows]) / n)[:, None].astype(np.float32)
            top = layers[-1]
            gradients = [top.T @ d_scores, d_scores.sum(axis=0), top.T @ d_values, d_values.sum(axis=0)]
            back = d_scores @ weights[-4].T + d_values @ weights[-2].T
            for index in range(len(weights) - 6, -2, -2):
                back = back * (layers[index // 2 + 1] > 0)
                gradients = [layers[index // 2].T @ back, back.sum(axis=0), *gradients]
                if index:
                    back = back @ weights[index].T
            adam.update(weights, [g.astype(np.float32) for g in gradients])
    return float(np.mean(entropies))


def greedy(weights: Weights, vectors: Array, masks: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    scores = forward(weights, vectors)[1]
    return np.argmax(np.where(masks > 0, scores, -np.inf), axis=1)  # type: ignore[no-any-return]


def play(
    weights: Weights,
    opponents: list[str],
    games: int,
    tables: int,
    seed: int,
    sample: np.random.Generator | None,
) -> tuple[dict[str, float], Batch]:
    """``games`` games of the learner at ``tables`` tables, table i against ``opponents[i % n]``,
    seats rotating: its mean score against each, and (``sample`` given: it samples its actions)
    its decisions for training."""
    envs = [SeatEnv("edible", [opponents[number % len(opponents)]]) for number in range(tables)]
    shown = [env.reset(seed=seed * 1_000_003 + number)[0] for number, env in enumerate(envs)]
    playing = list(range(tables))
    started = tables
    histories: list[Batch] = [Batch() for _ in envs]
    batch = Batch()
    scores, finished = dict.fromkeys(opponents, 0.0), dict.fromkeys(opponents, 0)
    while playing:
        vectors = np.stack([shown[number]["observation"] for number in playing])
        masks = np.stack([shown[number]["action_mask"] for number in playing])
        if sample is None:
            indices = greedy(weights, vectors, masks)
            chances = np.ones(len(playing), dtype=np.float32)
        else:
            p = masked_softmax(forward(weights, vectors)[1], masks)
            draws = sample.random(len(playing))[:, None]
            indices = np.minimum((p.cumsum(axis=1) < draws).sum(axis=1), ACTIONS - 1)
            indices = np.where(masks[np.arange(len(playing)), indices] > 0, indices, p.argmax(axis=1))
            chances = p[np.arange(len(playing)), indices]
        still = []
        for row, number in enumerate(playing):
            history = histories[number]
            if sample is not None:
                history.vectors.append(vectors[row])
                history.masks.append(masks[row])
                history.taken.append(int(indices[row]))
                history.chance.append(float(chances[row]))
            shown[number], reward, done, _, _ = envs[number].step(int(indices[row]))
            if not done:
                still.append(number)
                continue
            opponent = opponents[number % len(opponents)]
            scores[opponent] += reward
            finished[opponent] += 1
            if sample is not None:
                batch.vectors += history.vectors
                batch.masks += history.masks
                batch.taken += history.taken
                batch.chance += history.chance
                batch.returns += [float(reward)] * len(history.taken)
                histories[number] = Batch()
            if started < games:
                started += 1
                shown[number] = envs[number].reset()[0]
                still.append(number)
        playing = still
    return {name: scores[name] / max(finished[name], 1) for name in opponents}, batch


def export(weights: Weights, path: Path) -> None:
    """Write the policy as an ONNX model: input ``features`` (rows of FEATURES), output ``scores``."""
    policy = weights[:-2]
    nodes, initializers, current = [], [], "features"
    for layer in range(len(policy) // 2):
        w, b = f"w{layer + 1}", f"b{layer + 1}"
        initializers += [
            numpy_helper.from_array(policy[2 * layer], w),
            numpy_helper.from_array(policy[2 * layer + 1], b),
        ]
        last = layer == len(policy) // 2 - 1
        nodes += [helper.make_node("MatMul", [current, w], [f"z{layer + 1}"])]
        nodes += [helper.make_node("Add", [f"z{layer + 1}", b], ["scores" if last else f"a{layer + 1}"])]
        if not last:
            nodes += [helper.make_node("Relu", [f"a{layer + 1}"], [f"h{layer + 1}"])]
            current = f"h{layer + 1}"
    graph = helper.make_graph(
        nodes,
        "edible_policy",
        [helper.make_tensor_value_info("features", onnx.TensorProto.FLOAT, ["rows", FEATURES])],
        [helper.make_tensor_value_info("scores", onnx.TensorProto.FLOAT, ["rows", ACTIONS])],
        initializers,
    )
    # Opset 17 and IR version 8: what onnxruntime of the bot runtime (1.32) reads, and older ones.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    probe = np.random.default_rng(0).standard_normal((4, FEATURES)).astype(np.float32)
    (exported,) = ReferenceEvaluator(model).run(None, {"features": probe})
    assert np.allclose(exported, forward(weights, probe)[1], atol=1e-4), "the export scores differently"
    onnx.save(model, path)


def scored(scores: dict[str, float]) -> str:
    return ", ".join(f"scores {score:.3f} against {name}" for name, score in scores.items())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--steps", type=int, default=300_000, help="learner decisions to train on (default 300,000)"
    )
    parser.add_argument(
        "--hidden", type=int, nargs="+", default=[128], help="hidden layer sizes (default 128)"
    )
    parser.add_argument("--tables", type=int, default=64, help="games played side by side (default 64)")
    parser.add_argument("--batch", type=int, default=4096, help="decisions per update (default 4096)")
    parser.add_argument("--epochs", type=int, default=4, help="passes over each batch (default 4)")
    parser.add_argument("--rate", type=float, default=1e-3, help="Adam's learning rate (default 0.001)")
    parser.add_argument("--report", type=int, default=50_000, help="evaluate every this many decisions")
    parser.add_argument(
        "--evaluate", type=int, default=1000, help="greedy games per evaluation (default 1000)"
    )
    parser.add_argument(
        "--minutes", type=float, default=12.0, help="stop training after this long (default 12)"
    )
    parser.add_argument(
        "--opponents",
        nargs="+",
        default=["builtin:heuristic", "builtin:random"],
        help="one opponent per table in turn (default builtin:heuristic builtin:random)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, default=HERE / "model.onnx")
    args = parser.parse_args()
    began = time.monotonic()
    rng = np.random.default_rng(args.seed)
    weights = initial(args.hidden, rng)
    adam = Adam(weights, args.rate)
    steps, reported, round_number = 0, 0, 0
    deadline = began + 60 * args.minutes
    while steps < args.steps and time.monotonic() < deadline:
        round_number += 1
        games = max(1, args.batch // 11)  # an edible game is about 11 decisions of the learner's
        score, batch = play(weights, args.opponents, games, args.tables, args.seed + round_number, rng)
        entropy = ppo_update(weights, adam, batch, args.epochs, rng)
        steps += len(batch.taken)
        print(f"{steps:,} decisions: sampling, {scored(score)}, entropy {entropy:.2f}", file=sys.stderr)
        last = steps >= args.steps or time.monotonic() >= deadline
        if steps - reported >= args.report or last:
            reported = steps
            greedy_score, _ = play(
                weights, args.opponents, args.evaluate, args.tables, 10**6 + round_number, None
            )
            elapsed = time.monotonic() - began
            print(f"{steps:,} decisions, {elapsed:.0f} s: greedy, {scored(greedy_score)}")
    export(weights, args.output)
    print(f"wrote {args.output} ({args.output.stat().st_size:,} bytes) in {time.monotonic() - began:.0f} s")


if __name__ == "__main__":
    main()
