"""Observations as fixed-size float32 vectors and actions as indices into a fixed list, per game.

One function per game turns a seat's typed observation into numbers (``edible_features``,
``believe_features``, ``kozel_features``); each game's action space maps an action to its index
(``*_action_index``, ``*_legal_indices``), an index to its action (``*_action``) and gives the mask of
the legal ones (``*_mask``). Training (``sdk.envs``) and a bot in the sandbox call the same functions.
Seats are counted from the observing seat; the layouts (``EDIBLE_LAYOUT``, ...) name each field
(``field_slice`` finds one), and ``check_config`` refuses a config with larger hands than the
defaults. Believe's placements are factored into steps (``BELIEVE_ADD``, ``BELIEVE_PLACE``,
``believe_step``, ``believe_add``). Only numpy is needed.

The layouts, the action spaces and why: docs/features.md.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import chain
from typing import Any, NamedTuple

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


def _offsets(layout: Layout) -> dict[str, int]:
    """Where each field of ``layout`` starts. The vectors are written element by element into
    zeros: a list of hundreds of floats converted to an array at once costs more than the rest."""
    return {name: field_slice(layout, name).start for name, _, _ in layout}


def _zeros(size: int) -> array[float]:
    """``size`` zeros to write a vector into, entry by entry (``_vector`` makes it numpy's): a plain
    float32 array takes an entry a good deal faster than numpy does."""
    return array("f", bytes(4 * size))


_FLOAT32 = np.dtype(np.float32)
assert _FLOAT32.itemsize == array("f").itemsize
_INT8 = np.dtype(np.int8)


def _vector(entries: array[float]) -> Vector:
    """``entries`` as a numpy vector (the same memory, not a copy)."""
    return np.frombuffer(entries, _FLOAT32)


def _relative(seat: int, me: int, seats: int) -> int:
    """``seat`` counted from ``me`` (0 is ``me``); -1 stays -1 (no seat)."""
    return -1 if seat < 0 else (seat - me) % seats


def _absolute(relative: int, me: int, seats: int) -> int:
    return (me + relative) % seats


def index_mask(size: int, indices: list[int]) -> Mask:
    """``size`` zeros with a 1 at each of ``indices``."""
    mask = bytearray(size)
    for index in indices:  # one by one into bytes: cheaper than numpy, or than converting a list
        mask[index] = 1
    return np.frombuffer(mask, _INT8)


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
_EDIBLE_AT = _offsets(EDIBLE_LAYOUT)
_EDIBLE_PHASE_INDEX = {phase: index for index, phase in enumerate(_EDIBLE_PHASES)}
_BOOT = edible.Card.BOOT


def edible_features(observation: EdibleObservation) -> Vector:
    """``observation`` as ``EDIBLE_FEATURES`` float32 numbers (layout: ``EDIBLE_LAYOUT``)."""
    obs, at = observation, _EDIBLE_AT
    me, seats = obs.seat, len(obs.seats)
    v = np.zeros(EDIBLE_FEATURES, dtype=np.float32)
    v[at["phase"] + _EDIBLE_PHASE_INDEX[obs.phase]] = 1.0
    if obs.to_act >= 0:
        v[at["to_act"] + (obs.to_act - me) % seats] = 1.0
    v[at["first_player"] + (obs.first_player - me) % seats] = 1.0
    v[at["round"]] = min(obs.round_number, _EDIBLE_ROUND_SCALE) / _EDIBLE_ROUND_SCALE
    v[at["hand"]] = obs.hand_sausages / EDIBLE_HAND
    v[at["hand"] + 1] = obs.hand_boots / EDIBLE_HAND
    for position, card in enumerate(obs.my_mat):
        v[at["my_mat"] + 2 * position + (card is _BOOT)] = 1.0
    if obs.my_lost:
        boots = obs.my_lost.count(_BOOT)
        v[at["my_lost"]] = len(obs.my_lost) - boots
        v[at["my_lost"] + 1] = boots
    seat_at = at["seats"]
    for seat, view in enumerate(obs.seats):
        base = seat_at + (seat - me) % seats * _EDIBLE_SEAT_FIELDS
        v[base] = 1.0
        v[base + 1] = view.active
        v[base + 2] = view.hand_count / EDIBLE_HAND
        v[base + 3] = view.mat_count / EDIBLE_HAND
        v[base + 4] = view.successes
        v[base + 5] = view.passed
        v[base + 6] = view.eliminated_order / EDIBLE_SEATS
    for seat, bid in obs.auction:  # a seat's last bid stays (a pass writes 0)
        v[seat_at + (seat - me) % seats * _EDIBLE_SEAT_FIELDS + 7] = bid / EDIBLE_MAX_BID
    for turned in obs.turned:
        base = seat_at + (turned.seat - me) % seats * _EDIBLE_SEAT_FIELDS + 8
        v[base + 2 * turned.position + (turned.card is _BOOT)] = 1.0
    v[at["bids"]] = obs.high_bid / EDIBLE_MAX_BID
    v[at["bids"] + 1] = obs.total_on_mats / EDIBLE_MAX_BID
    v[at["bids"] + 2] = obs.blind_choices / EDIBLE_HAND
    v[at["high_bidder"] + ((obs.high_bidder - me) % seats if obs.high_bidder >= 0 else EDIBLE_SEATS)] = 1.0
    v[at["table"]] = seats / EDIBLE_SEATS
    previous = obs.previous_round
    if previous is not None:
        base = at["previous_round"]
        v[base] = 1.0
        v[base + 1 + (previous.challenger - me) % seats] = 1.0
        v[base + 1 + EDIBLE_SEATS] = previous.bid / EDIBLE_MAX_BID
        v[base + 2 + EDIBLE_SEATS] = previous.success
        owner = (previous.boot_owner - me) % seats if previous.boot_owner >= 0 else EDIBLE_SEATS
        v[base + 3 + EDIBLE_SEATS + owner] = 1.0
        v[base + 4 + 2 * EDIBLE_SEATS] = previous.challenger_eliminated
    return v


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


def edible_legal_indices(observation: EdibleObservation, legal_actions: Sequence[EdibleAction]) -> list[int]:
    """The index of each action of ``legal_actions`` (the SDK's ``self.legal_actions``), in order:
    a bot maps its policy's choice back with ``legal_actions[indices.index(choice)]``."""
    return [edible_action_index(action, observation) for action in legal_actions]


def edible_mask(observation: EdibleObservation, legal_actions: Sequence[EdibleAction]) -> Mask:
    """1 at the index of every action in ``legal_actions`` (the SDK's ``self.legal_actions``)."""
    return index_mask(EDIBLE_ACTIONS, edible_legal_indices(observation, legal_actions))


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
_BELIEVE_AT = _offsets(BELIEVE_LAYOUT)


_B_TO_ACT, _B_DEALER, _B_TABLE, _B_HAND, _B_SELECTION, _B_SELECTED, _B_PLACE_RULE, _B_SEATS = (
    _BELIEVE_AT[name]
    for name in ("to_act", "dealer", "table", "hand", "selection", "selected", "place_rule", "seats")
)
_B_PILE_OPEN, _B_PILE_KIND, _B_PILE, _B_LAST_PLACER, _B_LAST_SIZE, _B_COUNTS, _B_LAST_CHECK = (
    _BELIEVE_AT[name]
    for name in ("pile_open", "pile_kind", "pile", "last_placer", "last_size", "counts", "last_check")
)
_BELIEVE_ZEROS = _zeros(BELIEVE_FEATURES)
_MAX_PLACE = believe.MAX_PLACE


class _Called(NamedTuple):
    """What the calls up to one showed: per seat its placements checked true and false and the
    cards per kind it took into its hand face up (counts), the cards of piles that left the game,
    the seat rows of ``BELIEVE_LAYOUT`` from the 5th field on (absolute seats); and of the last
    call, whether it was true and its revealed copies per kind (scaled)."""

    last: believe.Check | None
    counts: tuple[tuple[int, ...], ...]
    discarded: int
    rows: tuple[array[float], ...]
    truthful: bool
    revealed: array[float]


_NO_CALLS = _Called(None, (), 0, (), False, _zeros(0))
_CALLED_ROW = _zeros(_BELIEVE_SEAT_FIELDS - 4)
"""A seat's row of what the calls showed before any call."""
_CALLED: dict[int, _Called] = {}
"""``_Called`` by the id of a game's last check (each entry holds that check, so no other object
takes its id while it is here): a game's checks only grow, and every seat's observation holds the
same ones, so each is added up once, at many tables at a time. Emptied when full."""
_CALLED_LIMIT = 4096


def _called(checks: tuple[believe.Check, ...], seats: int) -> _Called:
    if not checks:
        return _NO_CALLS
    last = checks[-1]
    known = _CALLED.get(id(last))
    if known is not None and known.last is last:
        return known
    before = _CALLED.get(id(checks[-2])) if len(checks) > 1 else None
    if before is not None and before.last is checks[-2]:  # one call since: add it alone
        counts, discarded, rows, new = list(before.counts), before.discarded, list(before.rows), checks[-1:]
    else:  # every call again
        counts, rows, new = [(0,) * (_BELIEVE_SEAT_FIELDS - 4)] * seats, [_CALLED_ROW] * seats, checks
        discarded = 0
    truthful = False
    for check in new:
        truthful = check.truthful
        field = 0 if truthful else 1
        placer, taker = check.placer, check.taker
        count = list(counts[placer])
        count[field] += 1
        counts[placer] = tuple(count)
        row = rows[placer] = rows[placer][:]
        row[field] = count[field] / _BELIEVE_CHECKS_SCALE
        if taker >= 0:
            count = list(counts[taker])
            row = rows[taker] if taker == placer else rows[taker][:]
            rows[taker] = row
            for card in check.revealed:
                count[2 + card] += 1
                row[2 + card] = count[2 + card] / BELIEVE_COPIES
            counts[taker] = tuple(count)
        else:
            discarded += check.pile_size
    revealed = _zeros(BELIEVE_KINDS)
    for card in last.revealed:
        revealed[card] += 1.0 / BELIEVE_COPIES
    if len(_CALLED) >= _CALLED_LIMIT:
        _CALLED.clear()
    called = _CALLED[id(last)] = _Called(last, tuple(counts), discarded, tuple(rows), truthful, revealed)
    return called


_HANDS: dict[tuple[int, ...], array[float]] = {}
"""The ``hand`` field by hand (copies per kind): a hand stands over many decisions. Emptied when full."""
_HANDS_LIMIT = 4096


def _hand(hand: tuple[int, ...]) -> array[float]:
    row = _HANDS.get(hand)
    if row is None:
        if len(_HANDS) >= _HANDS_LIMIT:
            _HANDS.clear()
        row = _HANDS[hand] = array("f", [count / BELIEVE_COPIES for count in hand])
    return row


def believe_features(observation: BelieveObservation, selection: Sequence[int] = NO_SELECTION) -> Vector:
    """``observation`` and the placement ``selection`` so far (copies per kind) as
    ``BELIEVE_FEATURES`` float32 numbers (layout: ``BELIEVE_LAYOUT``)."""
    obs = observation
    me, seats = obs.seat, len(obs.hand_counts)
    v = _BELIEVE_ZEROS[:]
    if obs.to_act >= 0:
        v[_B_TO_ACT + (obs.to_act - me) % seats] = 1.0
    v[_B_DEALER + (obs.dealer - me) % seats] = 1.0
    v[_B_TABLE] = seats / BELIEVE_SEATS
    v[_B_HAND : _B_HAND + len(obs.hand)] = _hand(obs.hand)
    if selection is not NO_SELECTION and any(selection):
        _write_selection(v, selection)
    rule = believe.place_rule(obs)
    v[_B_PLACE_RULE] = rule.max_cards / _MAX_PLACE
    v[_B_PLACE_RULE + 1] = rule.kind_fixed
    # Each seat: cards held, place, cards on the open pile, and what the calls showed of it.
    called = _called(obs.checks, seats)
    placed = [0] * seats
    for claim in obs.claims:
        placed[claim.seat] += claim.size
    pile = sum(placed)
    deck = max(sum(obs.hand_counts) + pile + called.discarded + obs.set_aside, 1)  # obs.total_cards
    rows, held, places, at = called.rows, obs.hand_counts, obs.places, _B_SEATS
    for seat in chain(range(me, seats), range(me)):  # relative seats 0, 1, ...
        v[at] = 1.0
        v[at + 1] = held[seat] / _BELIEVE_DECK
        v[at + 2] = places[seat] / BELIEVE_SEATS
        v[at + 3] = placed[seat] / _MAX_PLACE
        if rows:
            v[at + 4 : at + _BELIEVE_SEAT_FIELDS] = rows[seat]
        at += _BELIEVE_SEAT_FIELDS
    if obs.pile_open:
        v[_B_PILE_OPEN] = 1.0
        v[_B_PILE_KIND + obs.pile_kind] = 1.0
    v[_B_PILE] = pile / deck
    if obs.claims:
        v[_B_PILE + 1] = len(obs.claims) / BELIEVE_SEATS
        v[_B_LAST_PLACER + (obs.claims[-1].seat - me) % seats] = 1.0
        v[_B_LAST_SIZE] = obs.claims[-1].size / _MAX_PLACE
    v[_B_COUNTS] = called.discarded / deck
    v[_B_COUNTS + 1] = obs.set_aside / deck
    v[_B_COUNTS + 2] = len(obs.hand) / BELIEVE_KINDS
    if obs.checks:
        v[_B_COUNTS + 3] = min(len(obs.checks), _BELIEVE_CHECKS_SCALE) / _BELIEVE_CHECKS_SCALE
        last, at = obs.checks[-1], _B_LAST_CHECK
        v[at] = 1.0
        v[at + 1 + (last.caller - me) % seats] = 1.0
        v[at + 1 + BELIEVE_SEATS + (last.placer - me) % seats] = 1.0
        v[at + 1 + 2 * BELIEVE_SEATS] = last.believed
        v[at + 2 + 2 * BELIEVE_SEATS] = called.truthful
        at += 3 + 2 * BELIEVE_SEATS
        v[at : at + BELIEVE_KINDS] = called.revealed
        v[at + BELIEVE_KINDS + ((last.taker - me) % seats if last.taker >= 0 else BELIEVE_SEATS)] = 1.0
        v[at + 1 + BELIEVE_SEATS + BELIEVE_KINDS] = last.pile_size / deck
    return _vector(v)


def believe_add(
    vector: Vector, mask: Mask, observation: BelieveObservation, selection: Sequence[int], kind: int
) -> None:
    """Turn ``vector`` and ``mask``, ``believe_features`` and ``believe_mask`` of ``observation``
    for ``selection`` before its last card (of ``kind``) was added, into those for ``selection``:
    in place, only the entries one card changes (a placement's steps, cheaply)."""
    chosen = sum(selection)
    vector[_B_SELECTION + kind] = selection[kind] / BELIEVE_COPIES
    vector[_B_SELECTED] = chosen / _MAX_PLACE
    if chosen == 1:  # the first card: no more calls, and now a claim may end the placement
        mask[BELIEVE_BELIEVE] = mask[BELIEVE_DISBELIEVE] = 0
        if observation.pile_open:
            mask[BELIEVE_PLACE + observation.pile_kind] = 1
        else:
            mask[BELIEVE_PLACE : BELIEVE_PLACE + observation.kinds] = 1
    # The rule's most cards is min(MAX_PLACE, cards held), and a seat that chose every card it
    # holds has no kind left to add: below MAX_PLACE, only the kind just added can run out.
    if chosen >= _MAX_PLACE:
        mask[BELIEVE_ADD:BELIEVE_PLACE] = 0
    elif selection[kind] >= observation.hand[kind]:
        mask[BELIEVE_ADD + kind] = 0


def _write_selection(vector: Vector | array[float], selection: Sequence[int]) -> None:
    for kind, count in enumerate(selection):
        vector[_B_SELECTION + kind] = count / BELIEVE_COPIES
    vector[_B_SELECTED] = sum(selection) / _MAX_PLACE


def believe_mask(observation: BelieveObservation, selection: Sequence[int] = NO_SELECTION) -> Mask:
    """1 at every index the observing seat may play now, having selected ``selection`` so far
    (all 0 when it is not its turn)."""
    mask = bytearray(BELIEVE_ACTIONS)
    if observation.to_act != observation.seat:
        return np.frombuffer(mask, _INT8)
    chosen = 0 if selection is NO_SELECTION else sum(selection)
    if observation.pile_open and not chosen:
        mask[BELIEVE_BELIEVE] = mask[BELIEVE_DISBELIEVE] = 1
    if chosen < believe.place_rule(observation).max_cards:
        at = BELIEVE_ADD
        # A selection has BELIEVE_KINDS entries; a hand, those of the kinds its config deals.
        for count, selected in zip(observation.hand, selection, strict=False):
            if count > selected:
                mask[at] = 1
            at += 1
    if chosen:
        if observation.pile_open:
            mask[BELIEVE_PLACE + observation.pile_kind] = 1
        else:
            mask[BELIEVE_PLACE : BELIEVE_PLACE + observation.kinds] = b"\x01" * observation.kinds
    return np.frombuffer(mask, _INT8)


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
    cards: list[int] = []
    for kind, count in enumerate(selection):
        if count:
            cards += [kind] * count
    return believe.Place(tuple(cards), index - BELIEVE_PLACE)


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
_KOZEL_AT = _offsets(KOZEL_LAYOUT)
_K_PHASE, _K_SEATS, _K_TRUMP_SUIT, _K_TRUMP_CARD = (
    _KOZEL_AT[name] for name in ("phase", "seats", "trump_suit", "trump_card")
)
_K_TRUMP_STOCK, _K_TRUMP_HOLDER, _K_STOCK, _K_HAND = (
    _KOZEL_AT[name] for name in ("trump_stock", "trump_holder", "stock", "hand")
)
_K_HAND_POSITIONS, _K_HAND_COUNTS, _K_TRICK, _K_WINNING_SEAT = (
    _KOZEL_AT[name] for name in ("hand_positions", "hand_counts", "trick", "winning_seat")
)
_K_LEAD_SIZE, _K_PLAYED, _K_RETURNED, _K_MY_DISCARDS = (
    _KOZEL_AT[name] for name in ("lead_size", "played", "returned", "my_discards")
)
_K_TRICKS, _K_TEAM_TRICKS, _K_DEFEAT_POINTS, _K_DEAL, _K_PREVIOUS_DEAL = (
    _KOZEL_AT[name] for name in ("tricks", "team_tricks", "defeat_points", "deal", "previous_deal")
)
_KOZEL_PHASE_INDEX = {phase: index for index, phase in enumerate(_KOZEL_PHASES)}
_KOZEL_SUIT_INDEX = {suit: index for index, suit in enumerate(kozel.SUITS)}
_KOZEL_POSITION = {
    trump: {
        card: array(
            "f",
            [1]
            + [int(card[1] == suit) for suit in kozel.SUITS]
            + [int(card[0] == rank) for rank in kozel.RANK_ORDER]
            + [int(card[1] == trump)],
        )
        for card in kozel.DECK
    }
    for trump in kozel.SUITS
}
"""``_KOZEL_POSITION[trump][card]``: a held card's entries of ``hand_positions``."""
_KOZEL_ZEROS = _zeros(KOZEL_FEATURES)
_PLAYED: dict[int, tuple[tuple[kozel.Trick, ...], array[float]]] = {}
"""The ``played`` field's entries by the id of a deal's finished tricks (held, so no other tuple
takes the id): every seat's observation holds the same tricks until the next one ends."""
_PLAYED_LIMIT = 4096


def _played(tricks: tuple[kozel.Trick, ...]) -> array[float]:
    known = _PLAYED.get(id(tricks))
    if known is None or known[0] is not tricks:
        if len(_PLAYED) >= _PLAYED_LIMIT:
            _PLAYED.clear()
        played = _zeros(_KOZEL_CARDS)
        for trick in tricks:
            for play in trick.plays:
                for card in play.cards:
                    played[_KOZEL_CARD_INDEX[card]] = 1.0
        known = _PLAYED[id(tricks)] = (tricks, played)
    return known[1]


def kozel_features(observation: KozelObservation) -> Vector:
    """``observation`` as ``KOZEL_FEATURES`` float32 numbers (layout: ``KOZEL_LAYOUT``). Teams
    are relative too: the first of each pair of team entries is the observing seat's team."""
    obs, card_at = observation, _KOZEL_CARD_INDEX
    me, mine, other = obs.seat, obs.team, 1 - obs.team
    v = _KOZEL_ZEROS[:]
    v[_K_PHASE + _KOZEL_PHASE_INDEX[obs.phase]] = 1.0
    trump_card = obs.trump_card
    trump = trump_card[1]
    v[_K_TRUMP_SUIT + _KOZEL_SUIT_INDEX[trump]] = 1.0
    v[_K_TRUMP_CARD + card_at[trump_card]] = 1.0
    if obs.to_act >= 0:
        v[_K_SEATS + (obs.to_act - me) % 4] = 1.0
    if obs.turn >= 0:
        v[_K_SEATS + 4 + (obs.turn - me) % 4] = 1.0
    if obs.leader >= 0:
        v[_K_SEATS + 8 + (obs.leader - me) % 4] = 1.0
    v[_K_SEATS + 12 + (obs.dealer - me) % 4] = 1.0
    v[_K_TRUMP_HOLDER + ((obs.trump_holder - me) % 4 if obs.trump_holder >= 0 else 4)] = 1.0
    v[_K_TRUMP_STOCK] = obs.trump_in_stock
    v[_K_TRUMP_STOCK + 1] = max(obs.trump_depth, 0) / _KOZEL_STOCK
    v[_K_STOCK] = obs.stock_count / _KOZEL_STOCK
    at, held = _K_HAND_POSITIONS, _KOZEL_POSITION[trump]
    for card in obs.hand:
        v[_K_HAND + card_at[card]] = 1.0
        v[at : at + _KOZEL_POSITION_FIELDS] = held[card]
        at += _KOZEL_POSITION_FIELDS
    for seat, count in enumerate(obs.hand_counts):
        v[_K_HAND_COUNTS + (seat - me) % 4] = count / KOZEL_HAND
    at = _K_TRICK
    for play in obs.trick:
        v[at + (play.seat - me) % 4] = 1.0
        for card in play.cards:
            v[at + 4 + card_at[card]] = 1.0
        if play.discarded:
            v[at + 4 + _KOZEL_CARDS] = play.discarded / KOZEL_HAND
        if play.molodka:
            v[at + 5 + _KOZEL_CARDS] = 1.0
        at += _KOZEL_PLAY_FIELDS
    v[_K_WINNING_SEAT + ((obs.winning_seat - me) % 4 if obs.winning_seat >= 0 else 4)] = 1.0
    if obs.trick:
        v[_K_LEAD_SIZE] = len(obs.trick[0].cards) / KOZEL_HAND
    if obs.tricks:
        v[_K_PLAYED : _K_PLAYED + _KOZEL_CARDS] = _played(obs.tricks)
    for play in obs.returned:
        for card in play.cards:
            v[_K_RETURNED + card_at[card]] = 1.0
    for card in obs.my_discards:
        v[_K_MY_DISCARDS + card_at[card]] = 1.0
    v[_K_TRICKS] = len(obs.tricks) / _KOZEL_TRICKS
    v[_K_TEAM_TRICKS] = obs.team_tricks[mine] / _KOZEL_TRICKS
    v[_K_TEAM_TRICKS + 1] = obs.team_tricks[other] / _KOZEL_TRICKS
    v[_K_DEFEAT_POINTS] = obs.defeat_points[mine] / 12.0
    v[_K_DEFEAT_POINTS + 1] = obs.defeat_points[other] / 12.0
    v[_K_DEAL] = min(obs.deal_number, 50) / 50.0
    if obs.previous_deal is not None:
        v[_K_PREVIOUS_DEAL : _K_PREVIOUS_DEAL + _KOZEL_PREVIOUS] = _previous(obs.previous_deal, me, mine)
    return _vector(v)


_PREVIOUS: dict[tuple[int, int, int], tuple[kozel.DealSummary, array[float]]] = {}
"""The ``previous_deal`` field by the id of the deal's summary, seat and team (each entry holds the
summary, so no other takes its id): it stands for a whole deal. Emptied when full."""


def _previous(previous: kozel.DealSummary, me: int, mine: int) -> array[float]:
    key = (id(previous), me, mine)
    known = _PREVIOUS.get(key)
    if known is None or known[0] is not previous:
        if len(_PREVIOUS) >= _PLAYED_LIMIT:
            _PREVIOUS.clear()
        other = 1 - mine
        row = _zeros(_KOZEL_PREVIOUS)
        row[0] = 1.0
        row[1] = previous.points[mine] / 120.0
        row[2] = previous.points[other] / 120.0
        row[3] = previous.team_tricks[mine] / _KOZEL_TRICKS
        row[4] = previous.team_tricks[other] / _KOZEL_TRICKS
        row[5] = previous.defeat_awarded[mine] / 12.0
        row[6] = previous.defeat_awarded[other] / 12.0
        row[7 + (previous.last_trick_winner - me) % 4] = 1.0
        known = _PREVIOUS[key] = (previous, row)
    return known[1]


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


def kozel_legal_indices(observation: KozelObservation, legal_actions: Sequence[KozelAction]) -> list[int]:
    """The index of each action of ``legal_actions`` (the SDK's ``self.legal_actions``), in order:
    a bot maps its policy's choice back with ``legal_actions[indices.index(choice)]``."""
    bit = {card: 1 << position for position, card in enumerate(observation.hand)}.__getitem__
    indices = []
    for action in legal_actions:
        base = _KOZEL_BASES.get(type(action))
        cards: tuple[str, ...] = getattr(action, "cards", ())
        if base is not None and cards:
            try:  # (a try costs nothing until it catches; a with-block costs on every action)
                indices.append(base - 1 + sum(map(bit, cards)))
                continue
            except KeyError:  # a card not held: kozel_action_index names it
                pass
        indices.append(kozel_action_index(action, observation))
    return indices


def kozel_mask(observation: KozelObservation, legal_actions: Sequence[KozelAction]) -> Mask:
    """1 at the index of every action in ``legal_actions`` (the SDK's ``self.legal_actions``)."""
    return index_mask(KOZEL_ACTIONS, kozel_legal_indices(observation, legal_actions))


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
