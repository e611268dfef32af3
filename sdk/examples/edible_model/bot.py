"""A trained edible policy: a small network in ONNX (``model.onnx``) scores every action, and the
bot plays the best-scored legal one. ``train.py`` (beside it) trains it through the environment
(PPO against the heuristic, two seats) and exports it.

Check it:     arena bot check sdk/examples/edible_model/bot.py --game edible
Play it:      arena play edible sdk/examples/edible_model/bot.py builtin:heuristic
Submit it:    arena bot submit sdk/examples/edible_model --entry bot.py --name NAME --game edible

It needs numpy and onnxruntime, both in the bot runtime (``arena runtimes``), and the SDK's encoding
of an observation and of the actions (``sdk.features``), the environment's. The model is loaded
once, at start-up, which the arena's clocks bound like any other start.
"""

import sys
from pathlib import Path

import numpy as np
import onnxruntime  # type: ignore[import-not-found]  # the bot runtime's, not the arena's

from arena.games.edible import EdibleAction, EdibleObservation
from sdk import Bot, run
from sdk.features import edible_features, edible_legal_indices


def load(path: Path) -> onnxruntime.InferenceSession:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1  # a bot has one CPU (and at most 32 processes and threads)
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


class ModelBot(Bot[EdibleObservation, EdibleAction]):
    name = "edible-model"

    def __init__(self, model: onnxruntime.InferenceSession) -> None:
        super().__init__()
        self.model = model

    def act(self, observation: EdibleObservation) -> EdibleAction:
        (scores,) = self.model.run(None, {"features": edible_features(observation)[np.newaxis]})
        legal = edible_legal_indices(observation, self.legal_actions)
        return self.legal_actions[int(np.argmax(scores[0, legal]))]


if __name__ == "__main__":
    path = Path(__file__).with_name("model.onnx")
    print(f"loading {path.name} with onnxruntime {onnxruntime.__version__}", file=sys.stderr)
    run(ModelBot(load(path)))
