"""Trains the edible model and exports it to ONNX: ``.venv/bin/python sdk/examples/edible_model/train.py``.

It imitates the built-in heuristic bot: plays ``--games`` games of 3 and 4 heuristic seats with
the engine, notes every decision (the observation as ``sdk.features`` encodes it, the legal
actions, the one taken), and fits a small network, features -> ``--hidden`` ReLU units -> a score per action,
by cross-entropy over the legal actions (numpy alone, Adam). It then plays the network against
the random bot and prints how often it wins, and writes ``model.onnx`` beside this file. About a
minute of CPU; the ``onnx`` package (the dev extra) writes the file, the bot needs only
numpy and onnxruntime.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from arena.games.edible import Edible, EdibleAction, EdibleConfig, EdibleObservation
from arena.games.edible.bots import HeuristicBot
from sdk.features import EDIBLE_ACTIONS as ACTIONS
from sdk.features import EDIBLE_FEATURES as FEATURES
from sdk.features import edible_action_index as action_index
from sdk.features import edible_features as features

HERE = Path(__file__).resolve().parent

Weights = list[np.ndarray]
Policy = Callable[[EdibleObservation, list[EdibleAction], random.Random], EdibleAction]


def decisions(games: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The heuristic bot's decisions in ``games`` games: features, legal masks, actions taken."""
    rng = random.Random(seed)
    bot = HeuristicBot()
    bot.rng = rng
    rows, masks, taken = [], [], []
    for number in range(games):
        state = Edible().new_state(EdibleConfig(), 3 + number % 2, rng)
        while not state.is_terminal():
            seat = state.to_act()
            assert seat is not None
            observation, legal = state.observation(seat), state.legal_actions()
            bot.legal_actions = legal
            action = bot.act(observation)
            mask = np.zeros(ACTIONS, dtype=bool)
            mask[[action_index(choice, observation) for choice in legal]] = True
            rows.append(features(observation))
            masks.append(mask)
            taken.append(action_index(action, observation))
            state.apply(action, rng)
    return np.stack(rows), np.stack(masks), np.array(taken)


def forward(weights: Weights, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The network's hidden units and its scores for the rows of ``x``."""
    w1, b1, w2, b2 = weights
    hidden = np.maximum(x @ w1 + b1, 0.0)
    return hidden, hidden @ w2 + b2


def initial(hidden: int, rng: np.random.Generator) -> Weights:
    return [
        (rng.standard_normal((FEATURES, hidden)) * np.sqrt(2 / FEATURES)).astype(np.float32),
        np.zeros(hidden, dtype=np.float32),
        (rng.standard_normal((hidden, ACTIONS)) * np.sqrt(1 / hidden)).astype(np.float32),
        np.zeros(ACTIONS, dtype=np.float32),
    ]


def fit(data: tuple[np.ndarray, np.ndarray, np.ndarray], hidden: int, epochs: int, seed: int) -> Weights:
    """Cross-entropy over each decision's legal actions, minimised with Adam in batches of 256."""
    x, masks, taken = data
    rng = np.random.default_rng(seed)
    weights = initial(hidden, rng)
    moments = [np.zeros_like(w) for w in weights]
    squares = [np.zeros_like(w) for w in weights]
    rate, beta1, beta2, step = 3e-3, 0.9, 0.999, 0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        losses = []
        for start in range(0, len(x), 256):
            batch = order[start : start + 256]
            h, scores = forward(weights, x[batch])
            scores = np.where(masks[batch], scores, -1e9)
            scores -= scores.max(axis=1, keepdims=True)
            probabilities = np.exp(scores)
            probabilities /= probabilities.sum(axis=1, keepdims=True)
            rows = np.arange(len(batch))
            losses.append(-np.log(probabilities[rows, taken[batch]] + 1e-12).mean())
            delta = probabilities
            delta[rows, taken[batch]] -= 1.0
            delta /= len(batch)
            back = (delta @ weights[2].T) * (h > 0)
            gradients = [x[batch].T @ back, back.sum(axis=0), h.T @ delta, delta.sum(axis=0)]
            step += 1
            for index, gradient in enumerate(gradients):
                moments[index] = beta1 * moments[index] + (1 - beta1) * gradient
                squares[index] = beta2 * squares[index] + (1 - beta2) * gradient**2
                corrected = moments[index] / (1 - beta1**step)
                scale = np.sqrt(squares[index] / (1 - beta2**step)) + 1e-8
                weights[index] = (weights[index] - rate * corrected / scale).astype(np.float32)
        print(f"epoch {epoch + 1}: loss {np.mean(losses):.3f}", file=sys.stderr)
    return weights


def network_policy(weights: Weights) -> Policy:
    def choose(observation: EdibleObservation, legal: list[EdibleAction], rng: random.Random) -> EdibleAction:
        _, scores = forward(weights, features(observation)[np.newaxis])
        return legal[int(np.argmax([scores[0, action_index(action, observation)] for action in legal]))]

    return choose


def random_policy(
    observation: EdibleObservation, legal: list[EdibleAction], rng: random.Random
) -> EdibleAction:
    return rng.choice(legal)


def win_rate(policy: Policy, games: int, seed: int) -> float:
    """How often ``policy`` in one seat beats two random bots (3 seats; 1/3 by chance)."""
    rng = random.Random(seed)
    wins = 0.0
    for number in range(games):
        me = number % 3
        state = Edible().new_state(EdibleConfig(), 3, rng)
        while not state.is_terminal():
            seat = state.to_act()
            assert seat is not None
            chooser = policy if seat == me else random_policy
            state.apply(chooser(state.observation(seat), state.legal_actions(), rng), rng)
        ranks = state.result().ranks
        wins += (ranks[me] == 0) / ranks.count(0)
    return wins / games


def export(weights: Weights, path: Path) -> None:
    """Write the network as an ONNX model: input ``features`` (rows of FEATURES), output ``scores``."""
    names = ["w1", "b1", "w2", "b2"]
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["features", "w1"], ["z1"]),
            helper.make_node("Add", ["z1", "b1"], ["a1"]),
            helper.make_node("Relu", ["a1"], ["h1"]),
            helper.make_node("MatMul", ["h1", "w2"], ["z2"]),
            helper.make_node("Add", ["z2", "b2"], ["scores"]),
        ],
        "edible_policy",
        [helper.make_tensor_value_info("features", onnx.TensorProto.FLOAT, ["rows", FEATURES])],
        [helper.make_tensor_value_info("scores", onnx.TensorProto.FLOAT, ["rows", ACTIONS])],
        [numpy_helper.from_array(weight, name) for weight, name in zip(weights, names, strict=True)],
    )
    # Opset 17 and IR version 8: what onnxruntime of the bot runtime (1.32) reads, and older ones.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.checker.check_model(model)
    probe = np.random.default_rng(0).standard_normal((4, FEATURES)).astype(np.float32)
    (exported,) = ReferenceEvaluator(model).run(None, {"features": probe})
    assert np.allclose(exported, forward(weights, probe)[1], atol=1e-4), "the export scores differently"
    onnx.save(model, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--games", type=int, default=3000, help="heuristic games to learn from (default 3000)"
    )
    parser.add_argument("--hidden", type=int, default=64, help="hidden units (default 64)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", type=Path, default=HERE / "model.onnx")
    args = parser.parse_args()
    began = time.monotonic()
    data = decisions(args.games, args.seed)
    print(f"{len(data[0])} decisions from {args.games} games", file=sys.stderr)
    weights = fit(data, args.hidden, args.epochs, args.seed)
    agreement = np.mean(np.argmax(np.where(data[1], forward(weights, data[0])[1], -1e9), axis=1) == data[2])
    print(f"agrees with the heuristic on {agreement:.1%} of its decisions", file=sys.stderr)
    for name, policy in (("model", network_policy(weights)), ("heuristic", heuristic_policy())):
        print(f"{name} against two random bots: wins {win_rate(policy, 600, args.seed + 1):.1%} (chance 33%)")
    export(weights, args.output)
    print(f"wrote {args.output} ({args.output.stat().st_size:,} bytes) in {time.monotonic() - began:.0f} s")


def heuristic_policy() -> Policy:
    bot = HeuristicBot()

    def choose(observation: EdibleObservation, legal: list[EdibleAction], rng: random.Random) -> EdibleAction:
        bot.rng, bot.legal_actions = rng, legal
        return bot.act(observation)

    return choose


if __name__ == "__main__":
    main()
