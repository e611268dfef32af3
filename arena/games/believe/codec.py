"""Believe / Don't believe's protobuf codec (see ``arena.wire.codec``).

Placements are too many to list, so a decision request carries the calls in ``legal_actions``
and the placement rule in ``believe_place_rule`` (see ``fill_request``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

from arena.games import believe as bl
from arena.wire.codec import (
    GameCodec,
    HistoryReader,
    HistoryWire,
    IdentityMemo,
    ObservationReader,
    SameNamed,
    WireMemo,
)
from arena.wire.v1 import arena_pb2 as pb

# The scalar fields that the messages name as the engine's observation and call.
_OBSERVATION_SCALARS = SameNamed("seat", "to_act", "dealer", "pile_open", "set_aside")
_CHECK_SCALARS = SameNamed("caller", "believed", "placer", "claimed_kind", "taker", "pile_size")


@lru_cache(maxsize=4096)
def _check_wire(check: bl.Check) -> bytes:
    """A call as the wire bytes of an observation that holds just it, built once: every later
    observation of the game repeats it."""
    # The message's fields are named as the check's.
    return pb.BelieveObservation(checks=[pb.BelieveCheck(**check._asdict())]).SerializeToString()


@lru_cache(maxsize=4096)
def _pile_wire(cards: tuple[int, ...]) -> bytes:
    """A pile a seat took, as the wire bytes of an observation that holds just it."""
    return pb.BelieveObservation(taken=[pb.BelieveTaken(cards=cards)]).SerializeToString()


# The calls so far, and the piles a seat took: both grow append-only (each a tuple the engine
# replaces when it grows) and are the bulk of an observation. The calls are every seat's, the
# piles taken each seat's own.
_checks_wire: HistoryWire[bl.Check] = HistoryWire(_check_wire)
_taken_wire: IdentityMemo[tuple[tuple[int, ...], ...], bytes] = IdentityMemo(
    lambda taken: b"".join(map(_pile_wire, taken))
)


def _check_from_pb(message: pb.BelieveCheck) -> bl.Check:
    return bl.Check(**_CHECK_SCALARS.of(message), revealed=tuple(message.revealed))


_decode_check = WireMemo(_check_from_pb)


def _pile_from_pb(message: pb.BelieveTaken) -> tuple[int, ...]:
    return tuple(message.cards)


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
        message = request.believe_place_rule
        message.max_cards = rule.max_cards
        message.kind_fixed = rule.kind_fixed
        message.SetInParent()

    def fill_observation(self, message: pb.Observation, observation: bl.BelieveObservation) -> None:
        body = message.believe
        _OBSERVATION_SCALARS.copy(body, observation)
        body.hand.extend(observation.hand)
        body.hand_counts.extend(observation.hand_counts)
        body.places.extend(observation.places)
        if observation.pile_open:  # the wire has no -1: with no pile open the kind is left out
            body.pile_kind = observation.pile_kind
        for claim in observation.claims:
            body.claims.add(seat=claim.seat, count=claim.size)
        body.MergeFromString(_checks_wire(observation.checks) + _taken_wire(observation.taken))
        body.SetInParent()

    def decode_observation(
        self,
        message: pb.Observation,
        checks: Callable[[Sequence[pb.BelieveCheck]], tuple[bl.Check, ...]] | None = None,
        taken: Callable[[Sequence[pb.BelieveTaken]], tuple[tuple[int, ...], ...]] | None = None,
    ) -> bl.BelieveObservation:
        """``checks`` decodes the calls (by default each through a memo of their wire bytes),
        ``taken`` the piles the seat took (by default each afresh)."""
        body: pb.BelieveObservation = self.game_part(message, "observation")
        return bl.BelieveObservation(
            **_OBSERVATION_SCALARS.of(body),
            hand=tuple(body.hand),
            hand_counts=tuple(body.hand_counts),
            places=tuple(body.places),
            pile_kind=body.pile_kind if body.HasField("pile_kind") else -1,
            claims=tuple(bl.Claim(claim.seat, claim.count) for claim in body.claims),
            checks=checks(body.checks) if checks else tuple(map(_decode_check, body.checks)),
            taken=taken(body.taken) if taken else tuple(map(_pile_from_pb, body.taken)),
        )

    def reader(self) -> ObservationReader[bl.BelieveObservation]:
        """Keeps the game's calls and the piles the seat took (about 45 calls at a game's end, a
        pile a dozen cards): both only grow."""
        checks, taken = HistoryReader(_check_from_pb), HistoryReader(_pile_from_pb)
        return ObservationReader(
            lambda message: self.decode_observation(message, checks, taken), checks, taken
        )

    def encode_move(self, action: bl.BelieveAction) -> pb.BelieveAction | None:
        match action:
            case bl.Place(cards, claim):
                return pb.BelieveAction(place=pb.BelievePlace(cards=cards, claimed_kind=claim))
            case bl.Believe():
                return pb.BelieveAction(believe=True)
            case bl.Disbelieve():
                return pb.BelieveAction(disbelieve=True)
        return None

    def decode_move(self, body: pb.BelieveAction, move: str | None) -> bl.BelieveAction | None:
        if move == "place":
            return bl.Place(tuple(body.place.cards), body.place.claimed_kind)
        if move == "believe":
            return bl.BELIEVE
        if move == "disbelieve":
            return bl.DISBELIEVE
        return None


CODEC = BelieveCodec
"""The codec the wire layer finds here (``arena.wire.codec.codec_for``)."""
