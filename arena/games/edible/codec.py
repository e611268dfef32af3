"""Edible's protobuf codec (see ``arena.wire.codec``)."""

from __future__ import annotations

from functools import lru_cache

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from arena.games import edible as ed
from arena.wire.codec import GameCodec, ProtocolError, SameNamed, WireMemo
from arena.wire.v1 import arena_pb2 as pb

_EDIBLE_CARD_TO_PB = {ed.Card.SAUSAGE: pb.EDIBLE_CARD_SAUSAGE, ed.Card.BOOT: pb.EDIBLE_CARD_BOOT}
_EDIBLE_CARD_FROM_PB = {value: key for key, value in _EDIBLE_CARD_TO_PB.items()}
_EDIBLE_PHASE_TO_PB = {phase: pb.EdiblePhase.Value(f"EDIBLE_PHASE_{phase.name}") for phase in ed.Phase}
_EDIBLE_PHASE_FROM_PB = {value: key for key, value in _EDIBLE_PHASE_TO_PB.items()}

# The scalar fields that the messages name as the engine's observation, round summary and seat
# view.
_OBSERVATION_SCALARS = SameNamed(
    "seat",
    "to_act",
    "first_player",
    "round_number",
    "hand_sausages",
    "hand_boots",
    "high_bid",
    "high_bidder",
    "blind_choices",
)
_ROUND_SCALARS = SameNamed("challenger", "bid", "success", "boot_owner", "challenger_eliminated")
_SEAT_SCALARS = SameNamed(*ed.SeatView._fields)


def _edible_card(value: int, what: str) -> ed.Card:
    try:
        return _EDIBLE_CARD_FROM_PB[pb.EdibleCard.ValueType(value)]
    except KeyError:
        raise ProtocolError(f"{what}: {value} is not an edible card (1 = sausage, 2 = boot)") from None


@lru_cache(maxsize=1024)
def _edible_cards(values: tuple[int, ...], what: str) -> tuple[ed.Card, ...]:
    """A mat's or a hand's cards (a handful, in a few combinations a game: kept decoded)."""
    return tuple(_edible_card(value, what) for value in values)


def _add_turned(turns: RepeatedCompositeFieldContainer[pb.EdibleTurned], turned: ed.Turned) -> None:
    turns.add(seat=turned.seat, position=turned.position, card=_EDIBLE_CARD_TO_PB[turned.card])


@lru_cache(maxsize=4096)
def _seats_wire(seats: tuple[ed.SeatView, ...]) -> bytes:
    """Every seat's view, as the wire bytes of an observation that holds just them: they change a
    few times a round, and every observation repeats them."""
    message = pb.EdibleObservation()
    for view in seats:
        message.seats.add(**view._asdict())  # the message's fields are named as the view's
    return message.SerializeToString()


@lru_cache(maxsize=1024)
def _round_wire(previous: ed.RoundSummary) -> bytes:
    """How the last round ended, as the wire bytes of an observation that holds just that: every
    observation of a round repeats it."""
    message = pb.EdibleObservation()
    summary = message.previous_round
    summary.SetInParent()
    _ROUND_SCALARS.copy(summary, previous)
    for turned in previous.turned:
        _add_turned(summary.turned, turned)
    return message.SerializeToString()


def _turned_from_pb(message: pb.EdibleTurned) -> ed.Turned:
    return ed.Turned(message.seat, message.position, _edible_card(message.card, "turned card"))


def _seat_from_pb(view: pb.EdibleSeatView) -> ed.SeatView:
    return ed.SeatView(**_SEAT_SCALARS.of(view))


def _round_from_pb(summary: pb.EdibleRoundSummary) -> ed.RoundSummary:
    return ed.RoundSummary(
        **_ROUND_SCALARS.of(summary),
        turned=tuple(_turned_from_pb(turned) for turned in summary.turned),
    )


# A seat's view changes a few times a round and the last round's summary once: every observation
# repeats them, decoded once through a memo of their wire bytes.
_decode_seat = WireMemo(_seat_from_pb)
_decode_round = WireMemo(_round_from_pb)


class EdibleCodec(GameCodec[ed.EdibleConfig, ed.EdibleAction, ed.EdibleObservation]):
    game = "edible"
    config_type = ed.EdibleConfig

    def fill_observation(self, message: pb.Observation, observation: ed.EdibleObservation) -> None:
        body = message.edible
        _OBSERVATION_SCALARS.copy(body, observation)
        body.phase = _EDIBLE_PHASE_TO_PB[observation.phase]
        body.my_mat.extend([_EDIBLE_CARD_TO_PB[card] for card in observation.my_mat])
        body.my_lost.extend([_EDIBLE_CARD_TO_PB[card] for card in observation.my_lost])
        for seat, count in observation.auction:
            body.auction.add(seat=seat, count=count)
        for turned in observation.turned:
            _add_turned(body.turned, turned)
        previous = observation.previous_round
        wire = _seats_wire(observation.seats)
        body.MergeFromString(wire if previous is None else wire + _round_wire(previous))
        body.SetInParent()

    def decode_observation(self, message: pb.Observation) -> ed.EdibleObservation:
        body: pb.EdibleObservation = self.game_part(message, "observation")
        previous = _decode_round(body.previous_round) if body.HasField("previous_round") else None
        if body.phase not in _EDIBLE_PHASE_FROM_PB:
            raise ProtocolError(f"observation phase {body.phase} is unknown")
        return ed.EdibleObservation(
            **_OBSERVATION_SCALARS.of(body),
            phase=_EDIBLE_PHASE_FROM_PB[body.phase],
            my_mat=_edible_cards(tuple(body.my_mat), "my_mat"),
            my_lost=_edible_cards(tuple(body.my_lost), "my_lost"),
            seats=tuple(map(_decode_seat, body.seats)),
            auction=tuple((bid.seat, bid.count) for bid in body.auction),
            turned=tuple(_turned_from_pb(turned) for turned in body.turned),
            previous_round=previous,
        )

    def encode_move(self, action: ed.EdibleAction) -> pb.EdibleAction | None:
        match action:
            case ed.Place(card):
                return pb.EdibleAction(place=_EDIBLE_CARD_TO_PB[card])
            case ed.Bid(count):
                return pb.EdibleAction(bid=count)
            case ed.Pass():
                body = pb.EdibleAction()
                setattr(body, "pass", True)  # ``pass`` is a Python keyword
                return body
            case ed.Flip(seat, position):
                return pb.EdibleAction(flip=pb.EdibleFlip(seat=seat, position=position))
            case ed.PickBlind(position):
                return pb.EdibleAction(pick_blind=position)
            case ed.Discard(card):
                return pb.EdibleAction(discard=_EDIBLE_CARD_TO_PB[card])
            case ed.NameFirst(seat):
                return pb.EdibleAction(name_first=seat)
        return None

    def decode_move(self, body: pb.EdibleAction, move: str | None) -> ed.EdibleAction | None:
        if move == "place":
            return ed.Place(_edible_card(body.place, "place"))
        if move == "bid":
            return ed.Bid(body.bid)
        if move == "pass":
            return ed.PASS
        if move == "flip":
            return ed.Flip(body.flip.seat, body.flip.position)
        if move == "pick_blind":
            return ed.PickBlind(body.pick_blind)
        if move == "discard":
            return ed.Discard(_edible_card(body.discard, "discard"))
        if move == "name_first":
            return ed.NameFirst(body.name_first)
        return None


CODEC = EdibleCodec
"""The codec the wire layer finds here (``arena.wire.codec.codec_for``)."""
