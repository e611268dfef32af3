"""Believe's wire codec: every observation and action, placements included (the generic codec
test sees only the listed calls), round-trips; a decision request carries the placement rule."""

from __future__ import annotations

import random

import pytest

from arena.games.believe import BELIEVE, DISBELIEVE, BelieveConfig, BelieveGame, Place, place_rule
from arena.wire.codec import ProtocolError, codec_for
from arena.wire.v1 import arena_pb2 as pb


def test_config_observations_and_every_action_round_trip() -> None:
    codec = codec_for("believe")
    for config in (BelieveConfig(), BelieveConfig(kinds=3, copies=5, deal_leftovers=True, action_cap=77)):
        assert (
            codec.decode_config(pb.GameConfig.FromString(codec.encode_config(config).SerializeToString()))
            == config
        )
    places = 0
    for seed in range(20):
        rng = random.Random(seed)
        state = BelieveGame().new_state(BelieveConfig(), 2 + seed % 7, rng)
        while True:
            for seat in range(state.num_seats):
                observation = state.observation(seat)
                wire = pb.Observation.FromString(codec.encode_observation(observation).SerializeToString())
                assert codec.decode_observation(wire) == observation
            if state.is_terminal():
                break
            action = state.random_action(rng)
            wire_action = pb.Action.FromString(codec.encode_action(action).SerializeToString())
            assert codec.decode_action(wire_action) == action
            places += isinstance(action, Place)
            state.apply(action, rng)
    assert places > 500
    for call in (BELIEVE, DISBELIEVE):
        assert codec.decode_action(codec.encode_action(call)) == call


def test_a_decision_request_carries_the_calls_and_the_placement_rule() -> None:
    codec = codec_for("believe")
    rng = random.Random(3)
    state = BelieveGame().new_state(BelieveConfig(), 3, rng, dealer=0)
    request = pb.DecisionRequest()
    codec.fill_request(request, state.observation(0), state.legal_actions())
    assert list(request.legal_actions) == []
    assert request.HasField("believe_place_rule")
    assert (request.believe_place_rule.max_cards, request.believe_place_rule.kind_fixed) == (8, False)
    state.apply(Place(state.observation(0).my_cards[:2], 4), rng)
    request = pb.DecisionRequest()
    codec.fill_request(request, state.observation(1), state.legal_actions())
    assert codec.decode_legal(request.legal_actions) == [BELIEVE, DISBELIEVE]
    assert (request.believe_place_rule.max_cards, request.believe_place_rule.kind_fixed) == (8, True)
    assert codec.decode_observation(request.observation) == state.observation(1)
    assert place_rule(state.observation(1)) == (8, True)


def test_a_seat_that_may_only_call_gets_a_rule_of_zero_cards() -> None:
    codec = codec_for("believe")
    rng = random.Random(0)
    state = BelieveGame().new_state(BelieveConfig(kinds=1, copies=4), 2, rng)
    state.apply(Place((0, 0), 0), rng)
    state.apply(Place((0,), 0), rng)
    request = pb.DecisionRequest()
    codec.fill_request(request, state.observation(0), state.legal_actions())
    assert request.HasField("believe_place_rule")  # present, and it says: no placement
    assert (request.believe_place_rule.max_cards, request.believe_place_rule.kind_fixed) == (0, True)


def test_malformed_believe_messages_are_protocol_errors() -> None:
    codec = codec_for("believe")
    with pytest.raises(ProtocolError, match="got nothing"):
        codec.decode_action(pb.Action())
    with pytest.raises(ProtocolError, match="got edible"):
        codec.decode_action(pb.Action(edible=pb.EdibleAction(bid=1)))
    with pytest.raises(ProtocolError, match="no move"):
        codec.decode_action(pb.Action(believe=pb.BelieveAction()))
    with pytest.raises(ProtocolError, match="not a believe config"):
        codec.decode_config(pb.GameConfig())
    with pytest.raises(ProtocolError, match="not a believe observation"):
        codec.decode_observation(pb.Observation())
