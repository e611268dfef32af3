"""Edible's protobuf codec (see ``arena.wire.codec``)."""

from __future__ import annotations

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from arena.games import edible as ed
from arena.wire.codec import GameCodec, ProtocolError
from arena.wire.v1 import arena_pb2 as pb

_EDIBLE_CARD_TO_PB = {ed.Card.SAUSAGE: pb.EDIBLE_CARD_SAUSAGE, ed.Card.BOOT: pb.EDIBLE_CARD_BOOT}
_EDIBLE_CARD_FROM_PB = {value: key for key, value in _EDIBLE_CARD_TO_PB.items()}
_EDIBLE_PHASE_TO_PB = {phase: pb.EdiblePhase.Value(f"EDIBLE_PHASE_{phase.name}") for phase in ed.Phase}
_EDIBLE_PHASE_FROM_PB = {value: key for key, value in _EDIBLE_PHASE_TO_PB.items()}


def _edible_card(value: int, what: str) -> ed.Card:
    try:
        return _EDIBLE_CARD_FROM_PB[pb.EdibleCard.ValueType(value)]
    except KeyError:
        raise ProtocolError(f"{what}: {value} is not an edible card (1 = sausage, 2 = boot)") from None


def _add_turned(turns: RepeatedCompositeFieldContainer[pb.EdibleTurned], turned: ed.Turned) -> None:
    turns.add(seat=turned.seat, position=turned.position, card=_EDIBLE_CARD_TO_PB[turned.card])


def _turned_from_pb(message: pb.EdibleTurned) -> ed.Turned:
    return ed.Turned(message.seat, message.position, _edible_card(message.card, "turned card"))


class EdibleCodec(GameCodec[ed.EdibleConfig, ed.EdibleAction, ed.EdibleObservation]):
    game = "edible"
    config_type = ed.EdibleConfig

    def fill_observation(self, message: pb.Observation, observation: ed.EdibleObservation) -> None:
        body = message.edible
        body.seat = observation.seat
        body.phase = _EDIBLE_PHASE_TO_PB[observation.phase]
        body.to_act = observation.to_act
        body.first_player = observation.first_player
        body.round_number = observation.round_number
        body.hand_sausages = observation.hand_sausages
        body.hand_boots = observation.hand_boots
        body.my_mat.extend([_EDIBLE_CARD_TO_PB[card] for card in observation.my_mat])
        body.my_lost.extend([_EDIBLE_CARD_TO_PB[card] for card in observation.my_lost])
        for view in observation.seats:
            body.seats.add(
                active=view.active,
                hand_count=view.hand_count,
                mat_count=view.mat_count,
                successes=view.successes,
                passed=view.passed,
                eliminated_order=view.eliminated_order,
            )
        for seat, count in observation.auction:
            body.auction.add(seat=seat, count=count)
        body.high_bid = observation.high_bid
        body.high_bidder = observation.high_bidder
        for turned in observation.turned:
            _add_turned(body.turned, turned)
        body.blind_choices = observation.blind_choices
        previous = observation.previous_round
        if previous is not None:
            summary = body.previous_round
            summary.SetInParent()
            summary.challenger = previous.challenger
            summary.bid = previous.bid
            for turned in previous.turned:
                _add_turned(summary.turned, turned)
            summary.success = previous.success
            summary.boot_owner = previous.boot_owner
            summary.challenger_eliminated = previous.challenger_eliminated
        body.SetInParent()

    def decode_observation(self, message: pb.Observation) -> ed.EdibleObservation:
        if message.WhichOneof("game") != "edible":
            raise ProtocolError("observation is not an edible observation")
        body = message.edible
        previous = None
        if body.HasField("previous_round"):
            summary = body.previous_round
            previous = ed.RoundSummary(
                challenger=summary.challenger,
                bid=summary.bid,
                turned=tuple(_turned_from_pb(turned) for turned in summary.turned),
                success=summary.success,
                boot_owner=summary.boot_owner,
                challenger_eliminated=summary.challenger_eliminated,
            )
        if body.phase not in _EDIBLE_PHASE_FROM_PB:
            raise ProtocolError(f"observation phase {body.phase} is unknown")
        return ed.EdibleObservation(
            seat=body.seat,
            phase=_EDIBLE_PHASE_FROM_PB[body.phase],
            to_act=body.to_act,
            first_player=body.first_player,
            round_number=body.round_number,
            hand_sausages=body.hand_sausages,
            hand_boots=body.hand_boots,
            my_mat=tuple(_edible_card(card, "my_mat") for card in body.my_mat),
            my_lost=tuple(_edible_card(card, "my_lost") for card in body.my_lost),
            seats=tuple(
                ed.SeatView(
                    active=view.active,
                    hand_count=view.hand_count,
                    mat_count=view.mat_count,
                    successes=view.successes,
                    passed=view.passed,
                    eliminated_order=view.eliminated_order,
                )
                for view in body.seats
            ),
            auction=tuple((bid.seat, bid.count) for bid in body.auction),
            high_bid=body.high_bid,
            high_bidder=body.high_bidder,
            turned=tuple(_turned_from_pb(turned) for turned in body.turned),
            blind_choices=body.blind_choices,
            previous_round=previous,
        )

    def encode_action(self, action: ed.EdibleAction) -> pb.Action:
        match action:
            case ed.Place(card):
                body = pb.EdibleAction(place=_EDIBLE_CARD_TO_PB[card])
            case ed.Bid(count):
                body = pb.EdibleAction(bid=count)
            case ed.Pass():
                body = pb.EdibleAction()
                setattr(body, "pass", True)  # ``pass`` is a Python keyword
            case ed.Flip(seat, position):
                body = pb.EdibleAction(flip=pb.EdibleFlip(seat=seat, position=position))
            case ed.PickBlind(position):
                body = pb.EdibleAction(pick_blind=position)
            case ed.Discard(card):
                body = pb.EdibleAction(discard=_EDIBLE_CARD_TO_PB[card])
            case ed.NameFirst(seat):
                body = pb.EdibleAction(name_first=seat)
            case _:
                raise TypeError(f"not an edible action: {action!r}")
        return pb.Action(edible=body)

    def decode_action(self, message: pb.Action) -> ed.EdibleAction:
        if message.WhichOneof("game") != "edible":
            raise ProtocolError(f"expected an edible action, got {message.WhichOneof('game') or 'nothing'}")
        body = message.edible
        move = body.WhichOneof("move")
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
        raise ProtocolError("edible action has no move set")
