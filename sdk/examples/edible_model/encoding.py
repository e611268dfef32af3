"""Edible as numbers: an observation as a fixed vector, each action as an index into a fixed list.

What the model sees (``features``) and what it scores (``action_index``), shared by the bot and
its training script. Seats are counted from the bot's own (0 is itself, 1 the next clockwise), so
that what it learns in one seat holds in every other.
"""

from __future__ import annotations

import numpy as np

from arena.games.edible import (
    Bid,
    Card,
    Discard,
    EdibleAction,
    EdibleObservation,
    Flip,
    NameFirst,
    Pass,
    Phase,
    PickBlind,
    Place,
)

SEATS = 6
"""The most seats an edible table has."""
MAT = 4
"""The most cards on one mat (a hand is 4 cards in the default game)."""
MAX_BID = SEATS * MAT
PHASES = tuple(Phase)
SEAT_FIELDS = 6

# The action list: Place x2, Pass, Bid 1..MAX_BID, Flip (relative seat, position), PickBlind,
# Discard x2, NameFirst (relative seat).
PLACE, PASS, BID = 0, 2, 3
FLIP = BID + MAX_BID
PICK = FLIP + SEATS * MAT
DISCARD = PICK + MAT
NAME = DISCARD + 2
ACTIONS = NAME + SEATS

FEATURES = len(PHASES) + 4 + 2 * MAT + 2 + SEATS * SEAT_FIELDS + 3 + (SEATS + 1) + 3 + SEATS * MAT


def _relative(seat: int, observation: EdibleObservation) -> int:
    return (seat - observation.seat) % len(observation.seats)


def features(observation: EdibleObservation) -> np.ndarray:
    """``observation`` as ``FEATURES`` numbers (float32)."""
    vector = np.zeros(FEATURES, dtype=np.float32)
    at = 0

    def put(values: list[float]) -> None:
        nonlocal at
        vector[at : at + len(values)] = values
        at += len(values)

    put([float(observation.phase is phase) for phase in PHASES])
    active = [view for view in observation.seats if view.active]
    put(
        [
            observation.hand_sausages,
            observation.hand_boots,
            len(active) / SEATS,
            observation.round_number / 10,
        ]
    )
    mat = [0.0] * (2 * MAT)
    for position, card in enumerate(observation.my_mat[:MAT]):
        mat[2 * position + (card is Card.BOOT)] = 1.0
    put(mat)
    put([observation.my_lost.count(Card.SAUSAGE), observation.my_lost.count(Card.BOOT)])
    seats = [0.0] * (SEATS * SEAT_FIELDS)
    for seat, view in enumerate(observation.seats):
        base = _relative(seat, observation) * SEAT_FIELDS
        seats[base : base + SEAT_FIELDS] = [
            view.active,
            view.hand_count / MAT,
            view.mat_count / MAT,
            view.successes,
            view.passed,
            view.eliminated_order > 0,
        ]
    put(seats)
    put(
        [observation.high_bid / MAX_BID, observation.total_on_mats / MAX_BID, observation.blind_choices / MAT]
    )
    bidder = [0.0] * (SEATS + 1)
    bidder[SEATS if observation.high_bidder < 0 else _relative(observation.high_bidder, observation)] = 1.0
    put(bidder)
    own_run = 0
    for card in reversed(observation.my_mat):
        if card is not Card.SAUSAGE:
            break
        own_run += 1
    turned_boots = sum(turned.card is Card.BOOT for turned in observation.turned)
    put([own_run / MAT, len(observation.turned) / MAX_BID, turned_boots])
    turned = [0.0] * (SEATS * MAT)
    for shown in observation.turned:
        if shown.position < MAT:
            turned[_relative(shown.seat, observation) * MAT + shown.position] = 1.0
    put(turned)
    assert at == FEATURES
    return vector


def action_index(action: EdibleAction, observation: EdibleObservation) -> int:
    """``action``'s place in the action list (``ACTIONS`` of them)."""
    match action:
        case Place(card):
            return PLACE + (card is Card.BOOT)
        case Pass():
            return PASS
        case Bid(count):
            return BID + min(count, MAX_BID) - 1
        case Flip(seat, position):
            return FLIP + _relative(seat, observation) * MAT + min(position, MAT - 1)
        case PickBlind(position):
            return PICK + min(position, MAT - 1)
        case Discard(card):
            return DISCARD + (card is Card.BOOT)
        case NameFirst(seat):
            return NAME + _relative(seat, observation)
    raise ValueError(f"not an edible action: {action!r}")
