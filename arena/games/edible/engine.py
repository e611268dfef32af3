"""Edible / Inedible: the rules as a pure state machine. The rules page is ``RULES.md`` beside this file."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

from arena.games.base import (
    BadConfig,
    Game,
    GameConfig,
    GameResult,
    GameState,
    IllegalAction,
    first_place_shares,
    ranks_from_keys,
)


class Card(StrEnum):
    SAUSAGE = "sausage"
    BOOT = "boot"


class Phase(StrEnum):
    PLACE = "place"
    """Step 1: every active seat puts one card on its mat, in seat order from the first player."""
    ADD_OR_BID = "add_or_bid"
    """Step 2 before any bid: add one card to one's mat or open the auction."""
    AUCTION = "auction"
    """Step 2 after the opening bid: raise or pass (passing is final)."""
    ATTEMPT = "attempt"
    """Step 3: the challenger turns opponents' face-down cards one at a time."""
    BLIND_PICK = "blind_pick"
    """Failure on an opponent's boot: that opponent picks one of the challenger's shuffled cards."""
    CHOOSE_LOSS = "choose_loss"
    """Failure on the challenger's own boot: the challenger chooses which card to lose."""
    NAME_FIRST = "name_first"
    """The challenger, out on its own boot, names the next round's first player."""
    OVER = "over"


# --- actions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """Put a card of this kind from hand face down on top of one's mat (steps 1 and 2)."""

    card: Card


@dataclass(frozen=True, slots=True)
class Bid:
    """Open or raise the auction: the number of cards one will turn over."""

    count: int


@dataclass(frozen=True, slots=True)
class Pass:
    """Leave the auction for this round (final)."""


@dataclass(frozen=True, slots=True)
class Flip:
    """Turn the face-down card at ``position`` (0 = bottom) of ``seat``'s mat."""

    seat: int
    position: int


@dataclass(frozen=True, slots=True)
class PickBlind:
    """Take, unseen, the challenger's card at ``position`` of its shuffled cards out of the game."""

    position: int


@dataclass(frozen=True, slots=True)
class Discard:
    """Lose a card of this kind for good (the challenger, after turning its own boot)."""

    card: Card


@dataclass(frozen=True, slots=True)
class NameFirst:
    """Name the next round's first player (an eliminated challenger, after its own boot)."""

    seat: int


EdibleAction = Place | Bid | Pass | Flip | PickBlind | Discard | NameFirst
PASS = Pass()


# --- observation ---------------------------------------------------------------------------
# Observations are immutable snapshots built for every decision: NamedTuples, which are cheap to
# build (frozen dataclasses cost about three times as much).


class SeatView(NamedTuple):
    """What everyone sees of one seat."""

    active: bool
    hand_count: int
    mat_count: int
    successes: int
    """Successful attempts so far (the mat shows side 1 + successes)."""
    passed: bool
    """Passed in this round's auction."""
    eliminated_order: int
    """0 while in the game; 1 for the first seat eliminated, 2 for the next, ..."""


class Turned(NamedTuple):
    """A card turned face up during an attempt."""

    seat: int
    position: int
    card: Card


class RoundSummary(NamedTuple):
    """How the previous round ended, as everyone saw it."""

    challenger: int
    bid: int
    turned: tuple[Turned, ...]
    success: bool
    boot_owner: int
    """Whose boot ended the attempt (-1 on success)."""
    challenger_eliminated: bool


class EdibleObservation(NamedTuple):
    seat: int
    phase: Phase
    to_act: int
    """The seat deciding now (-1 when the game is over)."""
    first_player: int
    round_number: int
    hand_sausages: int
    hand_boots: int
    my_mat: tuple[Card, ...]
    """This seat's own mat, bottom to top."""
    my_lost: tuple[Card, ...]
    """Cards this seat has lost, in order: only the loser ever learns them."""
    seats: tuple[SeatView, ...]
    auction: tuple[tuple[int, int], ...]
    """This round's auction so far: (seat, bid), a bid of 0 meaning a pass."""
    high_bid: int
    high_bidder: int
    """-1 before the opening bid."""
    turned: tuple[Turned, ...]
    """Cards turned in this round's attempt so far."""
    blind_choices: int
    """In BLIND_PICK, how many face-down cards the picker chooses among; 0 otherwise."""
    previous_round: RoundSummary | None

    @property
    def total_on_mats(self) -> int:
        return sum(view.mat_count for view in self.seats)


# --- configuration and state ---------------------------------------------------------------


@dataclass(frozen=True)
class EdibleConfig(GameConfig):
    sausages: int = 3
    boots: int = 1
    successes_to_win: int = 2
    action_cap: int = 1000


class EdibleState(GameState[EdibleAction, EdibleObservation]):
    def __init__(self, config: EdibleConfig, num_seats: int) -> None:
        self.config = config
        self.num_seats = num_seats
        self.sausages = [config.sausages] * num_seats
        self.boots = [config.boots] * num_seats
        self.mats: list[list[Card]] = [[] for _ in range(num_seats)]
        self.face_up: list[list[bool]] = [[] for _ in range(num_seats)]
        self.lost: list[list[Card]] = [[] for _ in range(num_seats)]
        self.successes = [0] * num_seats
        self.eliminated = [0] * num_seats
        self.eliminations = 0
        self.phase = Phase.PLACE
        self.first = 0
        self.turn = 0
        self.round_number = 1
        self.placed_this_round = 0
        self.passed = [False] * num_seats
        self.auction: list[tuple[int, int]] = []
        self.high_bid = 0
        self.high_bidder = -1
        self.turned: list[Turned] = []
        self.boot_owner = -1
        self.blind_order: list[Card] = []
        self.previous: RoundSummary | None = None
        self.winner = -1
        self.actions = 0
        self.capped = False

    # -- helpers --

    def _active(self, seat: int) -> bool:
        return self.eliminated[seat] == 0

    def _next_active(self, seat: int) -> int:
        for step in range(1, self.num_seats + 1):
            other = (seat + step) % self.num_seats
            if self._active(other):
                return other
        raise AssertionError("no active seat")

    def _next_bidder(self, seat: int) -> int:
        other = self._next_active(seat)
        while self.passed[other]:
            other = self._next_active(other)
        return other

    def _hand(self, seat: int) -> int:
        return self.sausages[seat] + self.boots[seat]

    def _total_on_mats(self) -> int:
        return sum(len(mat) for mat in self.mats)

    def _active_count(self) -> int:
        return sum(1 for seat in range(self.num_seats) if self._active(seat))

    # -- GameState --

    def to_act(self) -> int | None:
        return None if self.phase is Phase.OVER else self.turn

    def legal_actions(self) -> list[EdibleAction]:
        phase, seat = self.phase, self.turn
        if phase is Phase.OVER:
            return []
        if phase is Phase.PLACE or phase is Phase.ADD_OR_BID:
            actions: list[EdibleAction] = []
            if self.sausages[seat]:
                actions.append(Place(Card.SAUSAGE))
            if self.boots[seat]:
                actions.append(Place(Card.BOOT))
            if phase is Phase.ADD_OR_BID:
                actions.extend(Bid(n) for n in range(1, self._total_on_mats() + 1))
            return actions
        if phase is Phase.AUCTION:
            raises: list[EdibleAction] = [Bid(n) for n in range(self.high_bid + 1, self._total_on_mats() + 1)]
            return [PASS, *raises]
        if phase is Phase.ATTEMPT:
            return [
                Flip(other, position)
                for other in range(self.num_seats)
                if other != seat
                for position, up in enumerate(self.face_up[other])
                if not up
            ]
        if phase is Phase.BLIND_PICK:
            return [PickBlind(position) for position in range(len(self.blind_order))]
        if phase is Phase.CHOOSE_LOSS:
            kinds: list[EdibleAction] = []
            if self.sausages[seat]:
                kinds.append(Discard(Card.SAUSAGE))
            if self.boots[seat]:
                kinds.append(Discard(Card.BOOT))
            return kinds
        # NAME_FIRST: the default, the next active seat clockwise, comes first.
        named: list[EdibleAction] = []
        other = self._next_active(seat)
        for _ in range(self._active_count()):
            named.append(NameFirst(other))
            other = self._next_active(other)
        return named

    def apply(self, action: EdibleAction, rng: random.Random) -> None:
        phase, seat = self.phase, self.turn
        if phase is Phase.OVER:
            raise IllegalAction("the game is over")
        if phase is Phase.PLACE:
            self._place(seat, action, "place a card on your mat (step 1)")
            self.placed_this_round += 1
            if self.placed_this_round == self._active_count():
                self.phase = Phase.ADD_OR_BID
                self.turn = self.first
            else:
                self.turn = self._next_active(seat)
        elif phase is Phase.ADD_OR_BID:
            if isinstance(action, Bid):
                self._open_bid(seat, action.count)
            elif isinstance(action, Place):
                self._place(seat, action, "")
                self.turn = self._next_active(seat)
            else:
                raise IllegalAction(f"{action!r}: add a card (Place) or open the auction (Bid)")
        elif phase is Phase.AUCTION:
            self._auction(seat, action)
        elif phase is Phase.ATTEMPT:
            self._flip(seat, action)
            if self.phase is Phase.BLIND_PICK:
                rng.shuffle(self.blind_order)
        elif phase is Phase.BLIND_PICK:
            if not isinstance(action, PickBlind) or not 0 <= action.position < len(self.blind_order):
                raise IllegalAction(
                    f"{action!r}: pick a position 0..{len(self.blind_order) - 1} of the challenger's cards"
                )
            self._lose(self.high_bidder, self.blind_order[action.position])
        elif phase is Phase.CHOOSE_LOSS:
            if not isinstance(action, Discard) or not self._holds(seat, action.card):
                raise IllegalAction(f"{action!r}: discard a kind of card you hold")
            self._lose(seat, action.card)
        elif phase is Phase.NAME_FIRST:
            if not isinstance(action, NameFirst) or not (
                0 <= action.seat < self.num_seats and self._active(action.seat)
            ):
                raise IllegalAction(f"{action!r}: name a seat still in the game")
            self._new_round(action.seat)
        self.actions += 1
        if self.phase is not Phase.OVER and self.actions >= self.config.action_cap:
            self.capped = True
            self.phase = Phase.OVER

    def _holds(self, seat: int, card: Card) -> bool:
        return (self.sausages if card is Card.SAUSAGE else self.boots)[seat] > 0

    def _place(self, seat: int, action: EdibleAction, what: str) -> None:
        if not isinstance(action, Place):
            raise IllegalAction(f"{action!r}: {what}")
        if not self._holds(seat, action.card):
            raise IllegalAction(f"{action!r}: you hold no {action.card} card")
        if action.card is Card.SAUSAGE:
            self.sausages[seat] -= 1
        else:
            self.boots[seat] -= 1
        self.mats[seat].append(action.card)
        self.face_up[seat].append(False)

    def _check_bid(self, count: int, low: int) -> None:
        total = self._total_on_mats()
        if not low <= count <= total:
            raise IllegalAction(f"bid {count}: a bid must be {low}..{total} (the cards on all mats)")

    def _open_bid(self, seat: int, count: int) -> None:
        self._check_bid(count, 1)
        self.auction.append((seat, count))
        self.high_bid, self.high_bidder = count, seat
        if count == self._total_on_mats():
            self._start_attempt()
        else:
            self.phase = Phase.AUCTION
            self.turn = self._next_bidder(seat)

    def _auction(self, seat: int, action: EdibleAction) -> None:
        if isinstance(action, Pass):
            self.passed[seat] = True
            self.auction.append((seat, 0))
            in_auction = sum(
                1 for other in range(self.num_seats) if self._active(other) and not self.passed[other]
            )
            if in_auction == 1:
                self._start_attempt()
                return
        elif isinstance(action, Bid):
            self._check_bid(action.count, self.high_bid + 1)
            self.auction.append((seat, action.count))
            self.high_bid, self.high_bidder = action.count, seat
            if action.count == self._total_on_mats():
                self._start_attempt()
                return
        else:
            raise IllegalAction(f"{action!r}: raise the bid (Bid) or Pass")
        self.turn = self._next_bidder(seat)

    def _start_attempt(self) -> None:
        challenger = self.high_bidder
        self.phase = Phase.ATTEMPT
        self.turn = challenger
        mat = self.mats[challenger]
        for position in range(len(mat) - 1, max(len(mat) - self.high_bid, 0) - 1, -1):
            self._turn_card(challenger, position)
            if self.phase is not Phase.ATTEMPT:
                return

    def _flip(self, seat: int, action: EdibleAction) -> None:
        if not isinstance(action, Flip):
            raise IllegalAction(f"{action!r}: turn an opponent's face-down card (Flip)")
        target, position = action.seat, action.position
        if target == seat or not 0 <= target < self.num_seats:
            raise IllegalAction(f"{action!r}: flip a card of an opponent's mat")
        if not 0 <= position < len(self.mats[target]):
            raise IllegalAction(f"{action!r}: seat {target}'s mat has {len(self.mats[target])} card(s)")
        if self.face_up[target][position]:
            raise IllegalAction(f"{action!r}: that card is already face up")
        self._turn_card(target, position)

    def _turn_card(self, owner: int, position: int) -> None:
        card = self.mats[owner][position]
        self.face_up[owner][position] = True
        self.turned.append(Turned(owner, position, card))
        if card is Card.BOOT:
            self._fail(owner)
        elif len(self.turned) == self.high_bid:
            self._succeed()

    def _succeed(self) -> None:
        challenger = self.high_bidder
        self.successes[challenger] += 1
        self._summarise(success=True, eliminated=False)
        if self.successes[challenger] == self.config.successes_to_win:
            self.winner = challenger
            self.phase = Phase.OVER
        else:
            self._new_round(challenger)

    def _fail(self, boot_owner: int) -> None:
        challenger = self.high_bidder
        self.boot_owner = boot_owner
        self._return_cards()
        if boot_owner == challenger:
            self.phase = Phase.CHOOSE_LOSS
            self.turn = challenger
        else:
            self.phase = Phase.BLIND_PICK
            self.turn = boot_owner
            # Shuffled by ``apply`` with the match RNG before the picker chooses.
            self.blind_order = [Card.SAUSAGE] * self.sausages[challenger] + [Card.BOOT] * self.boots[
                challenger
            ]

    def _return_cards(self) -> None:
        for seat, mat in enumerate(self.mats):
            for card in mat:
                if card is Card.SAUSAGE:
                    self.sausages[seat] += 1
                else:
                    self.boots[seat] += 1
            mat.clear()
            self.face_up[seat].clear()

    def _lose(self, challenger: int, card: Card) -> None:
        self.lost[challenger].append(card)
        if card is Card.SAUSAGE:
            self.sausages[challenger] -= 1
        else:
            self.boots[challenger] -= 1
        self.blind_order = []
        out = self._hand(challenger) == 0
        if out:
            self.eliminations += 1
            self.eliminated[challenger] = self.eliminations
        self._summarise(success=False, eliminated=out)
        if self._active_count() == 1:
            self.winner = next(seat for seat in range(self.num_seats) if self._active(seat))
            self.phase = Phase.OVER
        elif not out:
            self._new_round(challenger)
        elif self.boot_owner != challenger:
            self._new_round(self.boot_owner)
        else:
            self.phase = Phase.NAME_FIRST
            self.turn = challenger

    def _summarise(self, success: bool, eliminated: bool) -> None:
        self.previous = RoundSummary(
            challenger=self.high_bidder,
            bid=self.high_bid,
            turned=tuple(self.turned),
            success=success,
            boot_owner=-1 if success else self.boot_owner,
            challenger_eliminated=eliminated,
        )

    def _new_round(self, first: int) -> None:
        if any(self.mats):
            self._return_cards()
        self.round_number += 1
        self.first = self.turn = first
        self.phase = Phase.PLACE
        self.placed_this_round = 0
        self.passed = [False] * self.num_seats
        self.auction = []
        self.high_bid, self.high_bidder = 0, -1
        self.turned = []
        self.boot_owner = -1

    def observation(self, seat: int) -> EdibleObservation:
        return EdibleObservation(
            seat=seat,
            phase=self.phase,
            to_act=-1 if self.phase is Phase.OVER else self.turn,
            first_player=self.first,
            round_number=self.round_number,
            hand_sausages=self.sausages[seat],
            hand_boots=self.boots[seat],
            my_mat=tuple(self.mats[seat]),
            my_lost=tuple(self.lost[seat]),
            seats=tuple(
                SeatView(
                    active=self._active(other),
                    hand_count=self._hand(other),
                    mat_count=len(self.mats[other]),
                    successes=self.successes[other],
                    passed=self.passed[other],
                    eliminated_order=self.eliminated[other],
                )
                for other in range(self.num_seats)
            ),
            auction=tuple(self.auction),
            high_bid=self.high_bid,
            high_bidder=self.high_bidder,
            turned=tuple(self.turned),
            blind_choices=len(self.blind_order),
            previous_round=self.previous,
        )

    def result(self) -> GameResult:
        if self.phase is not Phase.OVER:
            raise IllegalAction("the game is not over")
        keys = [
            (3 if seat == self.winner else 2, self.successes[seat])
            if self._active(seat)
            else (1, self.eliminated[seat])
            for seat in range(self.num_seats)
        ]
        if not self.capped:
            keys = [(key[0], 0) if key[0] == 2 else key for key in keys]
        ranks = ranks_from_keys(keys)
        detail = {"winner": self.winner, "capped": self.capped, "rounds": self.round_number}
        return GameResult(ranks=ranks, scores=_scores(ranks, self.capped), detail=detail)

    def reveal(self) -> Mapping[str, Any]:
        return {
            "hands": [{"sausage": self.sausages[s], "boot": self.boots[s]} for s in range(self.num_seats)],
            "mats": [[str(card) for card in mat] for mat in self.mats],
            "lost": [[str(card) for card in lost] for lost in self.lost],
        }

    def clone(self) -> EdibleState:
        flat = ("sausages", "boots", "successes", "eliminated", "passed", "auction", "turned", "blind_order")
        return self.copy_lists(flat, nested=("mats", "face_up", "lost"))

    def reshuffle_hidden(self, seat: int, rng: random.Random) -> EdibleState:
        other = self.clone()
        for owner in range(self.num_seats):
            if owner == seat:
                continue
            hidden = [Card.SAUSAGE] * other.sausages[owner] + [Card.BOOT] * other.boots[owner]
            down = [pos for pos, up in enumerate(other.face_up[owner]) if not up]
            hidden += [other.mats[owner][pos] for pos in down]
            # A lost card is hidden from everyone but its owner: it may be swapped too.
            hidden += other.lost[owner]
            rng.shuffle(hidden)
            for pos in down:
                other.mats[owner][pos] = hidden.pop()
            other.lost[owner] = [hidden.pop() for _ in other.lost[owner]]
            other.sausages[owner] = hidden.count(Card.SAUSAGE)
            other.boots[owner] = hidden.count(Card.BOOT)
        if other.phase is Phase.BLIND_PICK:
            # Nobody sees the pile the picker draws from: deal it afresh from the challenger's hand.
            challenger = other.high_bidder
            other.blind_order = [Card.SAUSAGE] * other.sausages[challenger] + [Card.BOOT] * other.boots[
                challenger
            ]
            rng.shuffle(other.blind_order)
        return other


def _scores(ranks: Sequence[int], capped: bool) -> tuple[float, ...]:
    """The winner scores 1 and everyone else 0: the seat ranked first (seats sharing the first place
    share the point). A game the action cap ended has no winner, and nobody scores."""
    if capped:
        return tuple(0.0 for _ in ranks)
    return first_place_shares(ranks, range(len(ranks)))


class Edible(Game[EdibleConfig, EdibleAction, EdibleObservation]):
    name = "edible"
    version = 1
    title = "Edible / Inedible"
    min_seats = 2
    max_seats = 6
    config_type = EdibleConfig
    action_types = (Place, Bid, Pass, Flip, PickBlind, Discard, NameFirst)
    rules_path = "arena/games/edible/RULES.md"
    private_fields = frozenset({"seat", "hand_sausages", "hand_boots", "my_mat", "my_lost"})
    listed = 1
    builtin_bots = {"random": "bots:RandomBot", "heuristic": "bots:HeuristicBot"}

    def scores_for(self, ranks: Sequence[int], detail: Mapping[str, Any]) -> tuple[float, ...]:
        return _scores(ranks, bool(detail.get("capped")))

    def new_state(
        self, config: EdibleConfig, num_seats: int, rng: random.Random, dealer: int | None = None
    ) -> EdibleState:
        self.check_seats(num_seats, dealer)
        if config.sausages < 0 or config.boots < 1 or config.sausages + config.boots < 1:
            raise BadConfig("edible needs at least one boot per player and a non-negative sausage count")
        if config.successes_to_win < 1 or config.action_cap < 1:
            raise BadConfig("successes_to_win and action_cap must be at least 1")
        return EdibleState(config, num_seats)
