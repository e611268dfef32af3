"""Kozel's protobuf codec (see ``arena.wire.codec``)."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from arena.games import kozel as kz
from arena.wire.codec import GameCodec, ProtocolError, WireMemo
from arena.wire.v1 import arena_pb2 as pb

_KOZEL_PHASE_TO_PB = {phase: pb.KozelPhase.Value(f"KOZEL_PHASE_{phase.name}") for phase in kz.Phase}
_KOZEL_PHASE_FROM_PB = {value: key for key, value in _KOZEL_PHASE_TO_PB.items()}
_CARDS = frozenset(kz.DECK)


def _cards(cards: Iterable[str], what: str) -> tuple[str, ...]:
    decoded = tuple(cards)
    for card in decoded:
        if card not in _CARDS:
            raise ProtocolError(f"{what}: {card!r} is not a card (rank 6789TJQKA then suit SHDC, e.g. '7S')")
    return decoded


def _play_to_pb(play: kz.Play) -> pb.KozelPlay:
    return pb.KozelPlay(seat=play.seat, cards=play.cards, discarded=play.discarded, molodka=play.molodka)


@lru_cache(maxsize=4096)
def _trick_to_pb(trick: kz.Trick) -> pb.KozelTrick:
    """A finished trick's message, built once: every later observation of the deal repeats it (the
    message is copied into each observation, never changed)."""
    return pb.KozelTrick(
        plays=[_play_to_pb(play) for play in trick.plays],
        winner=trick.winner,
        returned=[_play_to_pb(play) for play in trick.returned],
    )


def _play_from_pb(message: pb.KozelPlay) -> kz.Play:
    return kz.Play(message.seat, _cards(message.cards, "played cards"), message.discarded, message.molodka)


def _trick_from_pb(message: pb.KozelTrick) -> kz.Trick:
    return kz.Trick(
        plays=tuple(_play_from_pb(play) for play in message.plays),
        winner=message.winner,
        returned=tuple(_play_from_pb(play) for play in message.returned),
    )


_decode_trick = WireMemo(_trick_from_pb)


def _deal_to_pb(deal: kz.DealSummary) -> pb.KozelDeal:
    return pb.KozelDeal(
        deal_number=deal.deal_number,
        dealer=deal.dealer,
        trump_card=deal.trump_card,
        points=deal.points,
        team_tricks=deal.team_tricks,
        defeat_awarded=deal.defeat_awarded,
        last_trick_winner=deal.last_trick_winner,
    )


def _deal_from_pb(message: pb.KozelDeal) -> kz.DealSummary:
    return kz.DealSummary(
        deal_number=message.deal_number,
        dealer=message.dealer,
        trump_card=message.trump_card,
        points=tuple(message.points),
        team_tricks=tuple(message.team_tricks),
        defeat_awarded=tuple(message.defeat_awarded),
        last_trick_winner=message.last_trick_winner,
    )


class KozelCodec(GameCodec[kz.KozelConfig, kz.KozelAction, kz.KozelObservation]):
    game = "kozel"
    config_type = kz.KozelConfig

    def encode_observation(self, observation: kz.KozelObservation) -> pb.Observation:
        body = pb.KozelObservation(
            seat=observation.seat,
            team=observation.team,
            phase=_KOZEL_PHASE_TO_PB[observation.phase],
            to_act=observation.to_act,
            turn=observation.turn,
            leader=observation.leader,
            trump_card=observation.trump_card,
            trump_in_stock=observation.trump_in_stock,
            trump_depth=observation.trump_depth,
            trump_holder=observation.trump_holder,
            stock_count=observation.stock_count,
            hand=observation.hand,
            hand_counts=observation.hand_counts,
            trick=[_play_to_pb(play) for play in observation.trick],
            returned=[_play_to_pb(play) for play in observation.returned],
            winning_seat=observation.winning_seat,
            tricks=[_trick_to_pb(trick) for trick in observation.tricks],
            my_discards=observation.my_discards,
            team_tricks=observation.team_tricks,
            defeat_points=observation.defeat_points,
            deal_number=observation.deal_number,
            dealer=observation.dealer,
        )
        if observation.previous_deal is not None:
            body.previous_deal.CopyFrom(_deal_to_pb(observation.previous_deal))
        return pb.Observation(kozel=body)

    def decode_observation(self, message: pb.Observation) -> kz.KozelObservation:
        if message.WhichOneof("game") != "kozel":
            raise ProtocolError("observation is not a kozel observation")
        body = message.kozel
        if body.phase not in _KOZEL_PHASE_FROM_PB:
            raise ProtocolError(f"observation phase {body.phase} is unknown")
        return kz.KozelObservation(
            seat=body.seat,
            team=body.team,
            phase=_KOZEL_PHASE_FROM_PB[body.phase],
            to_act=body.to_act,
            turn=body.turn,
            leader=body.leader,
            trump_card=body.trump_card,
            trump_in_stock=body.trump_in_stock,
            trump_depth=body.trump_depth,
            trump_holder=body.trump_holder,
            stock_count=body.stock_count,
            hand=_cards(body.hand, "hand"),
            hand_counts=tuple(body.hand_counts),
            trick=tuple(_play_from_pb(play) for play in body.trick),
            returned=tuple(_play_from_pb(play) for play in body.returned),
            winning_seat=body.winning_seat,
            tricks=tuple(map(_decode_trick, body.tricks)),
            my_discards=_cards(body.my_discards, "my_discards"),
            team_tricks=tuple(body.team_tricks),
            defeat_points=tuple(body.defeat_points),
            deal_number=body.deal_number,
            dealer=body.dealer,
            previous_deal=_deal_from_pb(body.previous_deal) if body.HasField("previous_deal") else None,
        )

    def encode_action(self, action: kz.KozelAction) -> pb.Action:
        match action:
            case kz.Lead(cards):
                body = pb.KozelAction(lead=pb.KozelCards(cards=cards))
            case kz.Beat(cards):
                body = pb.KozelAction(beat=pb.KozelCards(cards=cards))
            case kz.Discard(cards):
                body = pb.KozelAction(discard=pb.KozelCards(cards=cards))
            case kz.Molodka(cards):
                body = pb.KozelAction(molodka=pb.KozelCards(cards=cards))
            case kz.Decline():
                body = pb.KozelAction(decline=True)
            case _:
                raise TypeError(f"not a kozel action: {action!r}")
        return pb.Action(kozel=body)

    def decode_action(self, message: pb.Action) -> kz.KozelAction:
        if message.WhichOneof("game") != "kozel":
            raise ProtocolError(f"expected a kozel action, got {message.WhichOneof('game') or 'nothing'}")
        body = message.kozel
        move = body.WhichOneof("move")
        if move == "lead":
            return kz.Lead(_cards(body.lead.cards, "lead"))
        if move == "beat":
            return kz.Beat(_cards(body.beat.cards, "beat"))
        if move == "discard":
            return kz.Discard(_cards(body.discard.cards, "discard"))
        if move == "molodka":
            return kz.Molodka(_cards(body.molodka.cards, "molodka"))
        if move == "decline":
            return kz.DECLINE
        raise ProtocolError("kozel action has no move set")
