"""Observations as fixed-size float32 vectors and actions as indices into a fixed list, per game.

One function per game turns a seat's typed observation into numbers (``edible_features``,
``believe_features``, ``kozel_features``), and each game has a fixed action space: an action's
index (``*_action_index``), the action an index stands for (``*_action``) and the mask of the
legal ones (``*_mask``). Training (``sdk.envs``) and a bot playing in the sandbox call the same
functions, so what a policy learned on is what it plays with. Only numpy is needed.

Seats are counted from the observing seat: relative seat 0 is the seat itself, 1 the next
clockwise, and so on, so that what a policy learns in one seat holds in every other (in kozel,
relative seat 2 is the partner). Every vector is padded to the game's most seats; an absent
seat's entries are 0. The layouts (``EDIBLE_LAYOUT``, ...) name each field, its size and
meaning (``docs/features.md`` tables them; ``field_slice`` finds one). Sizes fit the default
configs (the ladder's); ``check_config`` refuses, with a ``ValueError``, a config with larger
hands.

Believe's placements (any 1..8 cards of the hand, claiming a kind) are too many for one list, so
a placement is *factored* into steps: add one card of a kind to a selection (``BELIEVE_ADD + k``),
as often as wanted, then place the selection claiming a kind (``BELIEVE_PLACE + c``). The
selection so far is part of the input (``believe_features(observation, selection)``), and
``believe_step`` plays an index: it returns the grown selection or the finished action. Every
legal placement is reached by adding its cards in any order, then claiming; every sequence the
mask allows ends in a legal placement (``tests/envs/test_features.py`` proves both).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from arena.games import believe, edible, kozel
from arena.games.believe import BelieveAction, BelieveObservation
from arena.games.edible import EdibleAction, EdibleObservation
from arena.games.kozel import KozelAction, KozelObservation
from arena.games.kozel.engine import HAND_SIZE as KOZEL_HAND

Vector = npt.NDArray[np.float32]
Mask = npt.NDArray[np.int8]
Layout = tuple[tuple[str, int, str], ...]
"""A vector's layout: (name, size, meaning) of each field, in order."""


def field_slice(layout: Layout, name: str) -> slice:
    """Where field ``name`` of ``layout`` lies in the vector."""
    start = 0
    for field, size, _ in layout:
        if field == name:
            return slice(start, start + size)
        start += size
    raise ValueError(f"no field {name!r}; fields: {', '.join(field for field, _, _ in layout)}")


def _one_hot(size: int, index: int) -> list[float]:
    """``size`` zeros with a 1 at ``index``; all zeros for an index outside ``0..size-1``."""
    values = [0.0] * size
    if 0 <= index < size:
        values[index] = 1.0
    return values


def _relative(seat: int, me: int, seats: int) -> int:
    """``seat`` counted from ``me`` (0 is ``me``); -1 stays -1 (no seat)."""
    return -1 if seat < 0 else (seat - me) % seats


def _absolute(relative: int, me: int, seats: int) -> int:
    return (me + relative) % seats


def _mask(size: int, indices: Iterable[int]) -> Mask:
    mask = np.zeros(size, dtype=np.int8)
    mask[list(indices)] = 1
    return mask


# --- edible ----------------------------------------------------------------------------------

EDIBLE_SEATS = edible.Edible.max_seats
EDIBLE_HAND = edible.EdibleConfig().sausages + edible.EdibleConfig().boots
"""The most cards a seat holds, so the most on one mat and to pick from blind (4)."""
EDIBLE_MAX_BID = EDIBLE_SEATS * EDIBLE_HAND
_EDIBLE_PHASES = tuple(edible.Phase)
_EDIBLE_ROUND_SCALE = 20.0

EDIBLE_PLACE = 0
"""``Place(SAUSAGE)``, then ``Place(BOOT)``."""
EDIBLE_PASS = EDIBLE_PLACE + 2
EDIBLE_BID = EDIBLE_PASS + 1
"""``Bid(n)`` is ``EDIBLE_BID + n - 1``, n = 1..EDIBLE_MAX_BID."""
EDIBLE_FLIP = EDIBLE_BID + EDIBLE_MAX_BID
"""``Flip`` of relative seat r (1..5) at position p is ``EDIBLE_FLIP + (r - 1) * EDIBLE_HAND + p``."""
EDIBLE_PICK = EDIBLE_FLIP + (EDIBLE_SEATS - 1) * EDIBLE_HAND
"""``PickBlind(p)`` is ``EDIBLE_PICK + p``."""
EDIBLE_DISCARD = EDIBLE_PICK + EDIBLE_HAND
"""``Discard(SAUSAGE)``, then ``Discard(BOOT)``."""
EDIBLE_NAME = EDIBLE_DISCARD + 2
"""``NameFirst`` of relative seat r (0..5) is ``EDIBLE_NAME + r``."""
EDIBLE_ACTIONS = EDIBLE_NAME + EDIBLE_SEATS

_EDIBLE_SEAT_FIELDS = 8 + 2 * EDIBLE_HAND
_EDIBLE_PREVIOUS = 1 + EDIBLE_SEATS + 1 + 1 + (EDIBLE_SEATS + 1) + 1
EDIBLE_LAYOUT: Layout = (
    (
        "phase",
        len(_EDIBLE_PHASES),
        "one-hot: place, add_or_bid, auction, attempt, blind_pick, choose_loss, name_first, over",
    ),
    ("to_act", EDIBLE_SEATS, "one-hot relative seat deciding now (none once over)"),
    ("first_player", EDIBLE_SEATS, "one-hot relative seat that began the round"),
    ("round", 1, "min(round_number, 20) / 20"),
    ("hand", 2, "own sausages / 4, own boots / 4"),
    ("my_mat", 2 * EDIBLE_HAND, "own mat, bottom to top: per position (sausage, boot)"),
    ("my_lost", 2, "own lost sausages, lost boots (counts)"),
    (
        "seats",
        EDIBLE_SEATS * _EDIBLE_SEAT_FIELDS,
        f"per relative seat, {_EDIBLE_SEAT_FIELDS} each: present, active, hand / 4, mat / 4, successes,"
        " passed, eliminated_order / 6, its last bid this round / 24 (0: none or a pass),"
        " cards turned face up this round per mat position (sausage, boot)",
    ),
    ("bids", 3, "high bid / 24, cards on all mats / 24, blind_choices / 4"),
    ("high_bidder", EDIBLE_SEATS + 1, "one-hot relative seat of the high bidder; last: none yet"),
    ("table", 1, "seats at the table / 6"),
    (
        "previous_round",
        _EDIBLE_PREVIOUS,
        "present, challenger (one-hot relative, 6), bid / 24, success, boot owner (one-hot relative;"
        " 7th: none), challenger eliminated; all 0 in the first round",
    ),
)
EDIBLE_FEATURES = sum(size for _, size, _ in EDIBLE_LAYOUT)


def edible_features(observation: EdibleObservation) -> Vector:
    """``observation`` as ``EDIBLE_FEATURES`` float32 numbers (layout: ``docs/features.md``)."""
    obs = observation
    me, seats = obs.seat, len(obs.seats)
    values: list[float] = []
    values += _one_hot(len(_EDIBLE_PHASES), _EDIBLE_PHASES.index(obs.phase))
    values += _one_hot(EDIBLE_SEATS, _relative(obs.to_act, me, seats))
    values += _one_hot(EDIBLE_SEATS, _relative(obs.first_player, me, seats))
    values.append(min(obs.round_number, _EDIBLE_ROUND_SCALE) / _EDIBLE_ROUND_SCALE)
    values += [obs.hand_sausages / EDIBLE_HAND, obs.hand_boots / EDIBLE_HAND]
    mat = [0.0] * (2 * EDIBLE_HAND)
    for position, card in enumerate(obs.my_mat):
        mat[2 * position + (card is edible.Card.BOOT)] = 1.0
    values += mat
    values += [obs.my_lost.count(edible.Card.SAUSAGE), obs.my_lost.count(edible.Card.BOOT)]
    last_bid = [0] * seats
    for seat, bid in obs.auction:
        last_bid[seat] = bid
    turned = [[0.0] * (2 * EDIBLE_HAND) for _ in range(seats)]
    for shown in obs.turned:
        turned[shown.seat][2 * shown.position + (shown.card is edible.Card.BOOT)] = 1.0
    for relative in range(EDIBLE_SEATS):
        if relative >= seats:
            values += [0.0] * _EDIBLE_SEAT_FIELDS
            continue
        seat = _absolute(relative, me, seats)
        view = obs.seats[seat]
        values += [
            1.0,
            float(view.active),
            view.hand_count / EDIBLE_HAND,
            view.mat_count / EDIBLE_HAND,
            float(view.successes),
            float(view.passed),
            view.eliminated_order / EDIBLE_SEATS,
            last_bid[seat] / EDIBLE_MAX_BID,
        ]
        values += turned[seat]
    values += [
        obs.high_bid / EDIBLE_MAX_BID,
        sum(view.mat_count for view in obs.seats) / EDIBLE_MAX_BID,
        obs.blind_choices / EDIBLE_HAND,
    ]
    high_bidder = _relative(obs.high_bidder, me, seats)
    values += _one_hot(EDIBLE_SEATS + 1, EDIBLE_SEATS if high_bidder < 0 else high_bidder)
    values.append(float(seats) / EDIBLE_SEATS)
    previous = obs.previous_round
    if previous is None:
        values += [0.0] * _EDIBLE_PREVIOUS
    else:
        boot_owner = _relative(previous.boot_owner, me, seats)
        values.append(1.0)
        values += _one_hot(EDIBLE_SEATS, _relative(previous.challenger, me, seats))
        values += [previous.bid / EDIBLE_MAX_BID, float(previous.success)]
        values += _one_hot(EDIBLE_SEATS + 1, EDIBLE_SEATS if boot_owner < 0 else boot_owner)
        values.append(float(previous.challenger_eliminated))
    return np.array(values, dtype=np.float32)


def edible_action_index(action: EdibleAction, observation: EdibleObservation) -> int:
    """``action``'s index in edible's action space (``EDIBLE_ACTIONS`` of them)."""
    me, seats = observation.seat, len(observation.seats)
    match action:
        case edible.Place(card):
            return EDIBLE_PLACE + (card is edible.Card.BOOT)
        case edible.Pass():
            return EDIBLE_PASS
        case edible.Bid(count) if 1 <= count <= EDIBLE_MAX_BID:
            return EDIBLE_BID + count - 1
        case edible.Flip(seat, position) if 0 <= position < EDIBLE_HAND and seat != me:
            return EDIBLE_FLIP + (_relative(seat, me, seats) - 1) * EDIBLE_HAND + position
        case edible.PickBlind(position) if 0 <= position < EDIBLE_HAND:
            return EDIBLE_PICK + position
        case edible.Discard(card):
            return EDIBLE_DISCARD + (card is edible.Card.BOOT)
        case edible.NameFirst(seat):
            return EDIBLE_NAME + _relative(seat, me, seats)
    raise ValueError(f"{action!r} has no index in edible's action space")


def edible_action(index: int, observation: EdibleObservation) -> EdibleAction:
    """The action that ``index`` stands for, seen from ``observation``'s seat."""
    me, seats = observation.seat, len(observation.seats)
    if not 0 <= index < EDIBLE_ACTIONS:
        raise ValueError(f"edible action indices are 0..{EDIBLE_ACTIONS - 1}, not {index}")
    if index < EDIBLE_PASS:
        return edible.Place(edible.Card.BOOT if index - EDIBLE_PLACE else edible.Card.SAUSAGE)
    if index == EDIBLE_PASS:
        return edible.PASS
    if index < EDIBLE_FLIP:
        return edible.Bid(index - EDIBLE_BID + 1)
    if index < EDIBLE_PICK:
        relative, position = divmod(index - EDIBLE_FLIP, EDIBLE_HAND)
        return edible.Flip(_absolute(relative + 1, me, seats), position)
    if index < EDIBLE_DISCARD:
        return edible.PickBlind(index - EDIBLE_PICK)
    if index < EDIBLE_NAME:
        return edible.Discard(edible.Card.BOOT if index - EDIBLE_DISCARD else edible.Card.SAUSAGE)
    return edible.NameFirst(_absolute(index - EDIBLE_NAME, me, seats))


def edible_mask(observation: EdibleObservation, legal_actions: Sequence[EdibleAction]) -> Mask:
    """1 at the index of every action in ``legal_actions`` (the SDK's ``self.legal_actions``)."""
    return _mask(EDIBLE_ACTIONS, (edible_action_index(action, observation) for action in legal_actions))


# --- believe ---------------------------------------------------------------------------------

BELIEVE_SEATS = believe.BelieveGame.max_seats
BELIEVE_KINDS = len(believe.KIND_NAMES)
BELIEVE_COPIES = believe.BelieveConfig().copies
_BELIEVE_DECK = BELIEVE_KINDS * BELIEVE_COPIES
_BELIEVE_CHECKS_SCALE = 20.0

BELIEVE_BELIEVE = 0
BELIEVE_DISBELIEVE = 1
BELIEVE_ADD = 2
"""Add one card of kind k to the selection: ``BELIEVE_ADD + k``."""
BELIEVE_PLACE = BELIEVE_ADD + BELIEVE_KINDS
"""Place the selection claiming kind c: ``BELIEVE_PLACE + c``."""
BELIEVE_ACTIONS = BELIEVE_PLACE + BELIEVE_KINDS

NO_SELECTION: tuple[int, ...] = (0,) * BELIEVE_KINDS
"""The selection before a placement's first card: copies per kind."""

_BELIEVE_SEAT_FIELDS = 6 + BELIEVE_KINDS
_BELIEVE_LAST_CHECK = 1 + 2 * BELIEVE_SEATS + 2 + BELIEVE_KINDS + (BELIEVE_SEATS + 1) + 1
BELIEVE_LAYOUT: Layout = (
    ("to_act", BELIEVE_SEATS, "one-hot relative seat deciding now (none once over)"),
    ("dealer", BELIEVE_SEATS, "one-hot relative seat of the dealer"),
    ("table", 1, "seats at the table / 8"),
    ("hand", BELIEVE_KINDS, "own copies per kind / 8"),
    ("selection", BELIEVE_KINDS, "copies per kind added to the placement being built / 8"),
    ("selected", 1, "cards in the placement being built / 8"),
    ("place_rule", 2, "max cards one may place now / 8, kind fixed (a pile is open)"),
    (
        "seats",
        BELIEVE_SEATS * _BELIEVE_SEAT_FIELDS,
        f"per relative seat, {_BELIEVE_SEAT_FIELDS} each: present, cards held / 64, finishing place / 8"
        " (0 while playing), cards it put on the open pile / 8, its placements checked true / 20 and"
        " false / 20, cards per kind it took into its hand face up (revealed by calls) / 8",
    ),
    ("pile_open", 1, "a pile is open"),
    ("pile_kind", BELIEVE_KINDS, "one-hot claimed kind of the open pile"),
    ("pile", 2, "cards on the open pile / deck, placements on it / 8"),
    ("last_placer", BELIEVE_SEATS, "one-hot relative seat of the open pile's last placement"),
    ("last_size", 1, "cards in the open pile's last placement / 8"),
    ("counts", 4, "discarded / deck, set aside / deck, kinds in the deck / 8, min(calls so far, 20) / 20"),
    (
        "last_check",
        _BELIEVE_LAST_CHECK,
        "the last call: present, caller (one-hot relative, 8), placer (one-hot relative, 8), believed,"
        " truthful, revealed copies per kind / 8, taker (one-hot relative; 9th: the pile left the game),"
        " pile size / deck; all 0 before the first call",
    ),
)
BELIEVE_FEATURES = sum(size for _, size, _ in BELIEVE_LAYOUT)


def believe_features(observation: BelieveObservation, selection: Sequence[int] = NO_SELECTION) -> Vector:
    """``observation`` and the placement ``selection`` so far (copies per kind) as
    ``BELIEVE_FEATURES`` float32 numbers (layout: ``docs/features.md``)."""
    obs = observation
    me, seats = obs.seat, len(obs.hand_counts)
    values: list[float] = []
    values += _one_hot(BELIEVE_SEATS, _relative(obs.to_act, me, seats))
    values += _one_hot(BELIEVE_SEATS, _relative(obs.dealer, me, seats))
    values.append(seats / BELIEVE_SEATS)
    hand = list(obs.hand) + [0] * (BELIEVE_KINDS - len(obs.hand))
    values += [count / BELIEVE_COPIES for count in hand]
    values += [selection[kind] / BELIEVE_COPIES for kind in range(BELIEVE_KINDS)]
    values.append(sum(selection) / believe.MAX_PLACE)
    rule = believe.place_rule(obs)
    values += [rule.max_cards / believe.MAX_PLACE, float(rule.kind_fixed)]
    # What each seat's calls showed: placements checked true and false, piles taken, cards
    # revealed to be taken into its hand (per kind).
    truthful = [0] * seats
    lied = [0] * seats
    took = [0] * seats
    shown_to = [[0] * BELIEVE_KINDS for _ in range(seats)]
    for check in obs.checks:
        if check.truthful:
            truthful[check.placer] += 1
        else:
            lied[check.placer] += 1
        if check.taker >= 0:
            took[check.taker] += 1
            for card in check.revealed:
                shown_to[check.taker][card] += 1
    placed = [0] * seats
    for claim in obs.claims:
        placed[claim.seat] += claim.size
    deck = max(obs.total_cards, 1)
    for relative in range(BELIEVE_SEATS):
        if relative >= seats:
            values += [0.0] * _BELIEVE_SEAT_FIELDS
            continue
        seat = _absolute(relative, me, seats)
        values += [
            1.0,
            obs.hand_counts[seat] / _BELIEVE_DECK,
            obs.places[seat] / BELIEVE_SEATS,
            placed[seat] / believe.MAX_PLACE,
            truthful[seat] / _BELIEVE_CHECKS_SCALE,
            lied[seat] / _BELIEVE_CHECKS_SCALE,
        ]
        values += [count / BELIEVE_COPIES for count in shown_to[seat]]
    values.append(float(obs.pile_open))
    values += _one_hot(BELIEVE_KINDS, obs.pile_kind)
    values += [obs.pile_size / deck, len(obs.claims) / BELIEVE_SEATS]
    last_placer = _relative(obs.claims[-1].seat, me, seats) if obs.claims else -1
    values += _one_hot(BELIEVE_SEATS, last_placer)
    values.append(obs.claims[-1].size / believe.MAX_PLACE if obs.claims else 0.0)
    values += [
        obs.discarded / deck,
        obs.set_aside / deck,
        len(obs.hand) / BELIEVE_KINDS,
        min(len(obs.checks), _BELIEVE_CHECKS_SCALE) / _BELIEVE_CHECKS_SCALE,
    ]
    if not obs.checks:
        values += [0.0] * _BELIEVE_LAST_CHECK
    else:
        last = obs.checks[-1]
        revealed = [0] * BELIEVE_KINDS
        for card in last.revealed:
            revealed[card] += 1
        taker = _relative(last.taker, me, seats)
        values.append(1.0)
        values += _one_hot(BELIEVE_SEATS, _relative(last.caller, me, seats))
        values += _one_hot(BELIEVE_SEATS, _relative(last.placer, me, seats))
        values += [float(last.believed), float(last.truthful)]
        values += [count / BELIEVE_COPIES for count in revealed]
        values += _one_hot(BELIEVE_SEATS + 1, BELIEVE_SEATS if taker < 0 else taker)
        values.append(last.pile_size / deck)
    return np.array(values, dtype=np.float32)


def believe_mask(observation: BelieveObservation, selection: Sequence[int] = NO_SELECTION) -> Mask:
    """1 at every index the observing seat may play now, having selected ``selection`` so far
    (all 0 when it is not its turn)."""
    mask = np.zeros(BELIEVE_ACTIONS, dtype=np.int8)
    if observation.to_act != observation.seat:
        return mask
    chosen = sum(selection)
    if observation.pile_open and not chosen:
        mask[BELIEVE_BELIEVE] = mask[BELIEVE_DISBELIEVE] = 1
    if chosen < believe.place_rule(observation).max_cards:
        for kind, count in enumerate(observation.hand):
            if count > selection[kind]:
                mask[BELIEVE_ADD + kind] = 1
    if chosen:
        if observation.pile_open:
            mask[BELIEVE_PLACE + observation.pile_kind] = 1
        else:
            mask[BELIEVE_PLACE : BELIEVE_PLACE + observation.kinds] = 1
    return mask


def believe_step(
    index: int, observation: BelieveObservation, selection: Sequence[int] = NO_SELECTION
) -> BelieveAction | tuple[int, ...]:
    """Play ``index`` on ``selection``: the grown selection (copies per kind) for an add, the
    finished action (a call or the ``Place`` of the selection) otherwise. The mask says which
    indices are legal; this only decodes."""
    if not 0 <= index < BELIEVE_ACTIONS:
        raise ValueError(f"believe action indices are 0..{BELIEVE_ACTIONS - 1}, not {index}")
    if index == BELIEVE_BELIEVE:
        return believe.BELIEVE
    if index == BELIEVE_DISBELIEVE:
        return believe.DISBELIEVE
    if index < BELIEVE_PLACE:
        grown = list(selection)
        grown[index - BELIEVE_ADD] += 1
        return tuple(grown)
    cards = tuple(kind for kind, count in enumerate(selection) for _ in range(count))
    return believe.Place(cards, index - BELIEVE_PLACE)


def believe_steps(action: BelieveAction) -> list[int]:
    """The indices that play ``action``: a call's one index, or a placement's adds (its cards in
    order) followed by its claim."""
    match action:
        case believe.Believe():
            return [BELIEVE_BELIEVE]
        case believe.Disbelieve():
            return [BELIEVE_DISBELIEVE]
        case believe.Place(cards, claim):
            return [BELIEVE_ADD + card for card in cards] + [BELIEVE_PLACE + claim]
    raise ValueError(f"{action!r} is not a believe action")


# --- kozel -----------------------------------------------------------------------------------

KOZEL_SEATS = 4

_KOZEL_CARDS = len(kozel.DECK)
_KOZEL_CARD_INDEX = {card: index for index, card in enumerate(kozel.DECK)}
_KOZEL_PHASES = tuple(kozel.Phase)
_KOZEL_SUBSETS = 2**KOZEL_HAND - 1
_KOZEL_STOCK = _KOZEL_CARDS - KOZEL_SEATS * KOZEL_HAND
_KOZEL_TRICKS = _KOZEL_CARDS // KOZEL_SEATS

KOZEL_DECLINE = 0
KOZEL_MOLODKA = 1
KOZEL_LEAD = 2
"""A card action's index is its type's base plus (bits - 1), bit i set when the card at position i
of the seat's hand (in the engine's card order) is in it: ``Lead``, then ``Beat``, then ``Discard``."""
KOZEL_BEAT = KOZEL_LEAD + _KOZEL_SUBSETS
KOZEL_DISCARD = KOZEL_BEAT + _KOZEL_SUBSETS
KOZEL_ACTIONS = KOZEL_DISCARD + _KOZEL_SUBSETS
_KOZEL_BASES: dict[type, int] = {kozel.Lead: KOZEL_LEAD, kozel.Beat: KOZEL_BEAT, kozel.Discard: KOZEL_DISCARD}
_KOZEL_TYPES = (kozel.Lead, kozel.Beat, kozel.Discard)

_KOZEL_POSITION_FIELDS = 1 + len(kozel.SUITS) + len(kozel.RANK_ORDER) + 1
_KOZEL_PLAY_FIELDS = KOZEL_SEATS + _KOZEL_CARDS + 2
_KOZEL_PREVIOUS = 1 + 2 + 2 + 2 + KOZEL_SEATS
KOZEL_LAYOUT: Layout = (
    ("phase", len(_KOZEL_PHASES), "one-hot: lead, play, molodka, over"),
    ("seats", 4 * KOZEL_SEATS, "one-hot relative seats of to_act, turn, leader, dealer (2 is the partner)"),
    ("trump_suit", len(kozel.SUITS), "one-hot S H D C"),
    ("trump_card", _KOZEL_CARDS, "one-hot card (cards in the engine's order, kozel.DECK)"),
    ("trump_stock", 2, "trump card in stock, its depth / 20"),
    ("trump_holder", KOZEL_SEATS + 1, "one-hot relative seat that drew the trump card; last: still in stock"),
    ("stock", 1, "cards in stock / 20"),
    ("hand", _KOZEL_CARDS, "own cards (one per card of kozel.DECK)"),
    (
        "hand_positions",
        KOZEL_HAND * _KOZEL_POSITION_FIELDS,
        f"per position of the own hand (the action space's positions), {_KOZEL_POSITION_FIELDS} each:"
        " present, suit one-hot, rank one-hot (6 7 8 9 J Q K T A), trump",
    ),
    ("hand_counts", KOZEL_SEATS, "cards held per relative seat / 4"),
    (
        "trick",
        KOZEL_SEATS * _KOZEL_PLAY_FIELDS,
        f"the current trick's plays, lead first, {_KOZEL_PLAY_FIELDS} each: relative seat one-hot,"
        " face-up cards, cards discarded face down / 4, molodka",
    ),
    ("winning_seat", KOZEL_SEATS + 1, "one-hot relative seat winning the trick; last: before the lead"),
    ("lead_size", 1, "cards led / 4"),
    ("played", _KOZEL_CARDS, "cards played face up in this deal's finished tricks"),
    ("returned", _KOZEL_CARDS, "cards of plays a molodka took back in the current trick"),
    ("my_discards", _KOZEL_CARDS, "own cards discarded face down in this deal"),
    ("tricks", 1, "finished tricks in this deal / 9"),
    ("team_tricks", 2, "tricks taken this deal by own team, other team / 9"),
    ("defeat_points", 2, "own team's, other team's / 12"),
    ("deal", 1, "min(deal_number, 50) / 50"),
    (
        "previous_deal",
        _KOZEL_PREVIOUS,
        "present, card points own/other / 120, tricks own/other / 9, defeat awarded own/other / 12,"
        " last trick's winner (one-hot relative); all 0 in the first deal",
    ),
)
KOZEL_FEATURES = sum(size for _, size, _ in KOZEL_LAYOUT)


def _kozel_cards(cards: Iterable[str]) -> list[float]:
    values = [0.0] * _KOZEL_CARDS
    for card in cards:
        values[_KOZEL_CARD_INDEX[card]] = 1.0
    return values


def kozel_features(observation: KozelObservation) -> Vector:
    """``observation`` as ``KOZEL_FEATURES`` float32 numbers (layout: ``docs/features.md``).
    Teams are relative too: the first of each pair of team entries is the observing seat's team."""
    obs = observation
    me, mine = obs.seat, obs.team
    trump = obs.trump_card[1]
    values: list[float] = []
    values += _one_hot(len(_KOZEL_PHASES), _KOZEL_PHASES.index(obs.phase))
    for seat in (obs.to_act, obs.turn, obs.leader, obs.dealer):
        values += _one_hot(KOZEL_SEATS, _relative(seat, me, KOZEL_SEATS))
    values += _one_hot(len(kozel.SUITS), kozel.SUITS.index(trump))
    values += _one_hot(_KOZEL_CARDS, _KOZEL_CARD_INDEX[obs.trump_card])
    values += [float(obs.trump_in_stock), max(obs.trump_depth, 0) / _KOZEL_STOCK]
    holder = _relative(obs.trump_holder, me, KOZEL_SEATS)
    values += _one_hot(KOZEL_SEATS + 1, KOZEL_SEATS if holder < 0 else holder)
    values.append(obs.stock_count / _KOZEL_STOCK)
    values += _kozel_cards(obs.hand)
    for position in range(KOZEL_HAND):
        if position >= len(obs.hand):
            values += [0.0] * _KOZEL_POSITION_FIELDS
            continue
        card = obs.hand[position]
        values.append(1.0)
        values += _one_hot(len(kozel.SUITS), kozel.SUITS.index(card[1]))
        values += _one_hot(len(kozel.RANK_ORDER), kozel.RANK_ORDER.index(card[0]))
        values.append(float(card[1] == trump))
    values += [obs.hand_counts[_absolute(r, me, KOZEL_SEATS)] / KOZEL_HAND for r in range(KOZEL_SEATS)]
    for index in range(KOZEL_SEATS):
        if index >= len(obs.trick):
            values += [0.0] * _KOZEL_PLAY_FIELDS
            continue
        play = obs.trick[index]
        values += _one_hot(KOZEL_SEATS, _relative(play.seat, me, KOZEL_SEATS))
        values += _kozel_cards(play.cards)
        values += [play.discarded / KOZEL_HAND, float(play.molodka)]
    winning = _relative(obs.winning_seat, me, KOZEL_SEATS)
    values += _one_hot(KOZEL_SEATS + 1, KOZEL_SEATS if winning < 0 else winning)
    values.append(len(obs.trick[0].cards) / KOZEL_HAND if obs.trick else 0.0)
    values += _kozel_cards(card for trick in obs.tricks for play in trick.plays for card in play.cards)
    values += _kozel_cards(card for play in obs.returned for card in play.cards)
    values += _kozel_cards(obs.my_discards)
    values.append(len(obs.tricks) / _KOZEL_TRICKS)
    values += [obs.team_tricks[mine] / _KOZEL_TRICKS, obs.team_tricks[1 - mine] / _KOZEL_TRICKS]
    values += [obs.defeat_points[mine] / 12.0, obs.defeat_points[1 - mine] / 12.0]
    values.append(min(obs.deal_number, 50) / 50.0)
    previous = obs.previous_deal
    if previous is None:
        values += [0.0] * _KOZEL_PREVIOUS
    else:
        values.append(1.0)
        values += [previous.points[mine] / 120.0, previous.points[1 - mine] / 120.0]
        values += [previous.team_tricks[mine] / _KOZEL_TRICKS, previous.team_tricks[1 - mine] / _KOZEL_TRICKS]
        values += [previous.defeat_awarded[mine] / 12.0, previous.defeat_awarded[1 - mine] / 12.0]
        values += _one_hot(KOZEL_SEATS, _relative(previous.last_trick_winner, me, KOZEL_SEATS))
    return np.array(values, dtype=np.float32)


def kozel_action_index(action: KozelAction, observation: KozelObservation) -> int:
    """``action``'s index in kozel's action space (``KOZEL_ACTIONS`` of them)."""
    if isinstance(action, kozel.Decline):
        return KOZEL_DECLINE
    if isinstance(action, kozel.Molodka):
        return KOZEL_MOLODKA
    base = _KOZEL_BASES.get(type(action))
    hand = observation.hand
    if base is not None and all(card in hand for card in action.cards) and action.cards:
        bits = sum(1 << hand.index(card) for card in action.cards)
        return base + bits - 1
    raise ValueError(f"{action!r} has no index in kozel's action space from hand {hand}")


def kozel_action(index: int, observation: KozelObservation) -> KozelAction:
    """The action that ``index`` stands for, with ``observation``'s hand."""
    if not 0 <= index < KOZEL_ACTIONS:
        raise ValueError(f"kozel action indices are 0..{KOZEL_ACTIONS - 1}, not {index}")
    if index == KOZEL_DECLINE:
        return kozel.DECLINE
    hand = observation.hand
    if index == KOZEL_MOLODKA:
        return kozel.Molodka(hand)
    kind, bits = divmod(index - KOZEL_LEAD, _KOZEL_SUBSETS)
    cards = tuple(card for position, card in enumerate(hand) if (bits + 1) >> position & 1)
    return _KOZEL_TYPES[kind](cards)


def kozel_mask(observation: KozelObservation, legal_actions: Sequence[KozelAction]) -> Mask:
    """1 at the index of every action in ``legal_actions`` (the SDK's ``self.legal_actions``)."""
    return _mask(KOZEL_ACTIONS, (kozel_action_index(action, observation) for action in legal_actions))


# --- configs ---------------------------------------------------------------------------------


def check_config(game: str, config: Any) -> None:
    """Raise ``ValueError`` unless this module's fixed sizes hold every observation and action of
    ``game`` played with ``config`` (its config dataclass): only edible's hand size is bounded
    (a mat, a bid and a blind pick grow with it); believe's kinds and kozel's cards are fixed."""
    if game == "edible":
        hand = config.sausages + config.boots
        if hand > EDIBLE_HAND:
            raise ValueError(f"edible's encoding holds hands of at most {EDIBLE_HAND} cards, not {hand}")
    elif game not in ("believe", "kozel"):
        raise ValueError(f"no encoding for game {game!r}; known: edible, believe, kozel")
