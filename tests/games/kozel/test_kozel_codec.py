"""Kozel's codec: malformed messages are protocol errors naming what is wrong (round trips of real
games are checked for every game by tests/wire/test_codec.py)."""

from __future__ import annotations

import pytest

from arena.games.kozel import DECLINE, Beat, KozelConfig, Lead
from arena.wire.codec import ProtocolError, codec_for
from arena.wire.v1 import arena_pb2 as pb


def test_actions_and_config_round_trip() -> None:
    codec = codec_for("kozel")
    config = KozelConfig(series_target=6, game_cap=3, action_cap=999)
    assert codec.decode_config(codec.encode_config(config)) == config
    for action in (Lead(("6S", "TS")), Beat(("AS", "6D")), DECLINE):
        assert (
            codec.decode_action(pb.Action.FromString(codec.encode_action(action).SerializeToString()))
            == action
        )


def test_malformed_kozel_messages_are_protocol_errors() -> None:
    codec = codec_for("kozel")
    with pytest.raises(ProtocolError, match="no move"):
        codec.decode_action(pb.Action(kozel=pb.KozelAction()))
    with pytest.raises(ProtocolError, match="not a card"):
        codec.decode_action(pb.Action(kozel=pb.KozelAction(lead=pb.KozelCards(cards=["1S"]))))
    with pytest.raises(ProtocolError, match="expected a kozel action"):
        codec.decode_action(pb.Action(edible=pb.EdibleAction(bid=1)))
    with pytest.raises(ProtocolError, match="not a kozel"):
        codec.decode_observation(pb.Observation())
    with pytest.raises(ProtocolError, match="not a kozel"):
        codec.decode_config(pb.GameConfig())
