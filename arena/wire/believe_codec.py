"""Believe / Don't believe's protobuf codec (see ``arena.wire.codec``).

Placements are too many to list, so a decision request carries the calls in ``legal_actions``
and the placement rule in ``believe_place_rule`` (see ``fill_request``).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from arena.games import believe as bl
from arena.wire.codec import GameCodec, ProtocolError, WireMemo
from arena.wire.v1 import arena_pb2 as pb


@lru_cache(maxsize=4096)
def _check_to_pb(check: bl.Check) -> pb.BelieveCheck:
    """A call's message, built once: every later observation of the game repeats it (the message is
    copied into each observation, never changed)."""
    return pb.BelieveCheck(
        caller=check.caller,
        believed=check.believed,
        placer=check.placer,
        claimed_kind=check.claimed_kind,
        revealed=check.revealed,
        taker=check.taker,
        pile_size=check.pile_size,
    )


def _check_from_pb(message: pb.BelieveCheck) -> bl.Check:
    return bl.Check(
        caller=message.caller,
        believed=message.believed,
        placer=message.placer,
        claimed_kind=message.claimed_kind,
        revealed=tuple(message.revealed),
        taker=message.taker,
        pile_size=message.pile_size,
    )


_decode_check = WireMemo(_check_from_pb)


class BelieveCodec(GameCodec[bl.BelieveConfig, bl.BelieveAction, bl.BelieveObservation]):
    game = "believe"
    config_type = bl.BelieveConfig

    def fill_request(
        self,
        request: pb.DecisionRequest,
        observation: bl.BelieveObservation,
        legal: Sequence[bl.BelieveAction],
    ) -> None:
        """The observation, the calls (``legal`` never lists placements) and the placement rule."""
        super().fill_request(request, observation, legal)
        rule = bl.place_rule(observation)
        request.believe_place_rule.CopyFrom(
            pb.BelievePlaceRule(max_cards=rule.max_cards, kind_fixed=rule.kind_fixed)
        )

    def encode_observation(self, observation: bl.BelieveObservation) -> pb.Observation:
        body = pb.BelieveObservation(
            seat=observation.seat,
            to_act=observation.to_act,
            dealer=observation.dealer,
            hand=observation.hand,
            hand_counts=observation.hand_counts,
            places=observation.places,
            pile_open=observation.pile_open,
            # The wire has no -1: with no pile open the kind is sent as 0 and ignored.
            pile_kind=observation.pile_kind if observation.pile_open else None,
            claims=[pb.BelieveClaim(seat=claim.seat, count=claim.size) for claim in observation.claims],
            checks=[_check_to_pb(check) for check in observation.checks],
            taken=[pb.BelieveTaken(cards=cards) for cards in observation.taken],
            set_aside=observation.set_aside,
        )
        return pb.Observation(believe=body)

    def decode_observation(self, message: pb.Observation) -> bl.BelieveObservation:
        if message.WhichOneof("game") != "believe":
            raise ProtocolError("observation is not a believe observation")
        body = message.believe
        return bl.BelieveObservation(
            seat=body.seat,
            to_act=body.to_act,
            dealer=body.dealer,
            hand=tuple(body.hand),
            hand_counts=tuple(body.hand_counts),
            places=tuple(body.places),
            pile_open=body.pile_open,
            pile_kind=body.pile_kind if body.HasField("pile_kind") else -1,
            claims=tuple(bl.Claim(claim.seat, claim.count) for claim in body.claims),
            checks=tuple(map(_decode_check, body.checks)),
            taken=tuple(tuple(taken.cards) for taken in body.taken),
            set_aside=body.set_aside,
        )

    def encode_action(self, action: bl.BelieveAction) -> pb.Action:
        match action:
            case bl.Place(cards, claim):
                body = pb.BelieveAction(place=pb.BelievePlace(cards=cards, claimed_kind=claim))
            case bl.Believe():
                body = pb.BelieveAction(believe=True)
            case bl.Disbelieve():
                body = pb.BelieveAction(disbelieve=True)
            case _:
                raise TypeError(f"not a believe action: {action!r}")
        return pb.Action(believe=body)

    def decode_action(self, message: pb.Action) -> bl.BelieveAction:
        if message.WhichOneof("game") != "believe":
            raise ProtocolError(f"expected a believe action, got {message.WhichOneof('game') or 'nothing'}")
        body = message.believe
        move = body.WhichOneof("move")
        if move == "place":
            return bl.Place(tuple(body.place.cards), body.place.claimed_kind)
        if move == "believe":
            return bl.BELIEVE
        if move == "disbelieve":
            return bl.DISBELIEVE
        raise ProtocolError("believe action has no move set")
