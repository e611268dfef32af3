"""Kozel's protobuf codec (see ``arena.wire.codec``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from arena.games import kozel as kz
from arena.wire.codec import (
    GameCodec,
    HistoryReader,
    HistoryWire,
    ObservationReader,
    ProtocolError,
    SameNamed,
    WireMemo,
)
from arena.wire.v1 import arena_pb2 as pb

_KOZEL_PHASE_TO_PB = {phase: pb.KozelPhase.Value(f"KOZEL_PHASE_{phase.name}") for phase in kz.Phase}
_KOZEL_PHASE_FROM_PB = {value: key for key, value in _KOZEL_PHASE_TO_PB.items()}
_CARDS = frozenset(kz.DECK)

# The scalar fields that the messages name as the engine's observation and deal summary.
_OBSERVATION_SCALARS = SameNamed(
    "seat",
    "team",
    "to_act",
    "turn",
    "leader",
    "trump_card",
    "trump_in_stock",
    "trump_depth",
    "trump_holder",
    "stock_count",
    "winning_seat",
    "deal_number",
    "dealer",
)
_DEAL_SCALARS = SameNamed("deal_number", "dealer", "trump_card", "last_trick_winner")


def _cards(cards: Iterable[str], what: str) -> tuple[str, ...]:
    decoded = tuple(cards)
    if not _CARDS.issuperset(decoded):
        card = next(card for card in decoded if card not in _CARDS)
        raise ProtocolError(f"{what}: {card!r} is not a card (rank 6789TJQKA then suit SHDC, e.g. '7S')")
    return decoded


def _add_play(plays: RepeatedCompositeFieldContainer[pb.KozelPlay], play: kz.Play) -> None:
    plays.add(seat=play.seat, cards=play.cards, discarded=play.discarded, molodka=play.molodka)


@lru_cache(maxsize=4096)
def _trick_wire(trick: kz.Trick) -> bytes:
    """A finished trick as the wire bytes of an observation that holds just it, built once: every
    later observation of the deal repeats it."""
    message = pb.KozelTrick(winner=trick.winner)
    for play in trick.plays:
        _add_play(message.plays, play)
    for play in trick.returned:
        _add_play(message.returned, play)
    return pb.KozelObservation(tricks=[message]).SerializeToString()


# The deal's finished tricks: a tuple the engine replaces when it grows, the bulk of an observation.
_tricks_wire: HistoryWire[kz.Trick] = HistoryWire(_trick_wire)


def _play_from_pb(message: pb.KozelPlay) -> kz.Play:
    return kz.Play(message.seat, _cards(message.cards, "played cards"), message.discarded, message.molodka)


# A play stays in the trick being played for the observations of up to four decisions.
_decode_play = WireMemo(_play_from_pb)


def _trick_from_pb(message: pb.KozelTrick) -> kz.Trick:
    return kz.Trick(
        plays=tuple(map(_decode_play, message.plays)),
        winner=message.winner,
        returned=tuple(map(_decode_play, message.returned)),
    )


_decode_trick = WireMemo(_trick_from_pb)


@lru_cache(maxsize=1024)
def _deal_wire(deal: kz.DealSummary) -> bytes:
    """How the last deal went, as the wire bytes of an observation that holds just that: every
    observation of a deal repeats it."""
    # The message's fields are named as the summary's.
    return pb.KozelObservation(previous_deal=pb.KozelDeal(**deal._asdict())).SerializeToString()


def _deal_from_pb(message: pb.KozelDeal) -> kz.DealSummary:
    return kz.DealSummary(
        **_DEAL_SCALARS.of(message),
        points=tuple(message.points),
        team_tricks=tuple(message.team_tricks),
        defeat_awarded=tuple(message.defeat_awarded),
    )


# The last deal's summary: the same at every decision of a deal.
_decode_deal = WireMemo(_deal_from_pb)


class KozelCodec(GameCodec[kz.KozelConfig, kz.KozelAction, kz.KozelObservation]):
    game = "kozel"
    config_type = kz.KozelConfig

    def fill_observation(self, message: pb.Observation, observation: kz.KozelObservation) -> None:
        body = message.kozel
        _OBSERVATION_SCALARS.copy(body, observation)
        body.phase = _KOZEL_PHASE_TO_PB[observation.phase]
        body.hand.extend(observation.hand)
        body.hand_counts.extend(observation.hand_counts)
        for play in observation.trick:
            _add_play(body.trick, play)
        for play in observation.returned:
            _add_play(body.returned, play)
        body.my_discards.extend(observation.my_discards)
        body.team_tricks.extend(observation.team_tricks)
        body.defeat_points.extend(observation.defeat_points)
        deal = observation.previous_deal
        tricks = _tricks_wire(observation.tricks)
        body.MergeFromString(tricks if deal is None else tricks + _deal_wire(deal))
        body.SetInParent()

    def decode_observation(
        self,
        message: pb.Observation,
        tricks: Callable[[Sequence[pb.KozelTrick], int], tuple[kz.Trick, ...]] | None = None,
    ) -> kz.KozelObservation:
        """``tricks`` decodes the deal's finished tricks, given the deal's number (by default each
        through a memo of their wire bytes)."""
        body: pb.KozelObservation = self.game_part(message, "observation")
        if body.phase not in _KOZEL_PHASE_FROM_PB:
            raise ProtocolError(f"observation phase {body.phase} is unknown")
        return kz.KozelObservation(
            **_OBSERVATION_SCALARS.of(body),
            phase=_KOZEL_PHASE_FROM_PB[body.phase],
            hand=_cards(body.hand, "hand"),
            hand_counts=tuple(body.hand_counts),
            trick=tuple(map(_decode_play, body.trick)),
            returned=tuple(map(_decode_play, body.returned)),
            tricks=tricks(body.tricks, body.deal_number)
            if tricks
            else tuple(map(_decode_trick, body.tricks)),
            my_discards=_cards(body.my_discards, "my_discards"),
            team_tricks=tuple(body.team_tricks),
            defeat_points=tuple(body.defeat_points),
            previous_deal=_decode_deal(body.previous_deal) if body.HasField("previous_deal") else None,
        )

    def reader(self) -> ObservationReader[kz.KozelObservation]:
        """Keeps the deal's finished tricks (up to 9): they only grow within a deal."""
        tricks = HistoryReader(_trick_from_pb)
        return ObservationReader(lambda message: self.decode_observation(message, tricks), tricks)

    def encode_move(self, action: kz.KozelAction) -> pb.KozelAction | None:
        match action:
            case kz.Lead(cards):
                return pb.KozelAction(lead=pb.KozelCards(cards=cards))
            case kz.Beat(cards):
                return pb.KozelAction(beat=pb.KozelCards(cards=cards))
            case kz.Discard(cards):
                return pb.KozelAction(discard=pb.KozelCards(cards=cards))
            case kz.Molodka(cards):
                return pb.KozelAction(molodka=pb.KozelCards(cards=cards))
            case kz.Decline():
                return pb.KozelAction(decline=True)
        return None

    def decode_move(self, body: pb.KozelAction, move: str | None) -> kz.KozelAction | None:
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
        return None


CODEC = KozelCodec
"""The codec the wire layer finds here (``arena.wire.codec.codec_for``)."""
