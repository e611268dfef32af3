"""The SDK's answers: an action a bot picked before is not encoded again, and every answer
carries its own decision's id."""

from __future__ import annotations

import random
from typing import Any

from arena.bots import load_bot
from arena.games.edible.codec import EdibleCodec
from arena.games.registry import get_game
from arena.wire.codec import codec_for
from arena.wire.v1 import arena_pb2 as pb
from sdk.client import _answers, _decide


class Counting(EdibleCodec):
    def __init__(self) -> None:
        super().__init__()
        self.encoded = 0

    def encode_action(self, action: Any) -> pb.Action:
        self.encoded += 1
        return super().encode_action(action)


def test_an_action_picked_again_is_answered_without_encoding_it_again() -> None:
    game, arena = get_game("edible"), codec_for("edible")
    codec = Counting()
    bot = load_bot("edible", "builtin:random")
    observations, answers = codec.reader(), _answers(codec)
    decisions, picked = 0, set()
    for seed in range(20):
        rng = random.Random(seed)
        state = game.new_state(game.config_type(), 3, rng)
        observations.new_game()
        while not state.is_terminal():
            seat = state.to_act()
            assert seat is not None
            decisions += 1
            request = pb.DecisionRequest(decision_id=decisions)
            arena.fill_request(request, state.observation(seat), state.legal_actions())
            # As it travels: a message of its own, decoded from its bytes.
            answer = pb.BotMessage.FromString(
                _decide(bot, codec, observations, answers, request).SerializeToString()
            )
            assert answer.action.decision_id == decisions
            action = arena.decode_action(answer.action)
            assert action in state.legal_actions()
            picked.add(action)
            state.apply(action, rng)
    assert decisions > 500
    assert codec.encoded == len(picked)  # once per action, over some 1,000 decisions
