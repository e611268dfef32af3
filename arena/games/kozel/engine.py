"""Goat (Kozel): the rules as a pure state machine. The rules page is ``RULES.md`` beside this file.

One engine game is a whole series of deals, played until a team reaches ``series_target`` defeat
points (or a cap stops it). Cards are strings, rank then suit: ``"7S"``, ``"TH"``, ``"AC"``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Any, NamedTuple, TypeVar

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

# --- cards -----------------------------------------------------------------------------------

SUITS = "SHDC"
"""Suits in the engine's card order: spades, hearts, diamonds, clubs."""
RANK_ORDER = "6789JQKTA"
"""Ranks from weakest to strongest within a suit (the ten ranks between the king and the ace)."""
POINTS = {"6": 0, "7": 0, "8": 0, "9": 0, "J": 2, "Q": 3, "K": 4, "T": 10, "A": 11}
DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANK_ORDER)
"""The 36 cards in the engine's card order: by suit (S H D C), then weakest to strongest."""
HAND_SIZE = 4
TEAMS = ((0, 2), (1, 3))

_ORDER = {card: index for index, card in enumerate(DECK)}
_STRENGTH = {card: RANK_ORDER.index(card[0]) for card in DECK}


def card_key(card: str) -> int:
    """Sort key of the engine's card order; every card tuple the engine shows or accepts is sorted by it."""
    return _ORDER[card]


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """``cards`` in the engine's card order (by suit S H D C, then weakest to strongest)."""
    return tuple(sorted(cards, key=_ORDER.__getitem__))


def card_points(cards: Iterable[str]) -> int:
    return sum(POINTS[card[0]] for card in cards)


def beats(card: str, other: str, trump: str) -> bool:
    """Whether ``card`` beats ``other`` when ``trump`` is the trump suit: a stronger card of the
    same suit, or a trump over a non-trump. Non-trumps of different suits never beat each other."""
    if card[1] == other[1]:
        return _STRENGTH[card] > _STRENGTH[other]
    return card[1] == trump


def beats_all(cards: Sequence[str], winning: Sequence[str], trump: str) -> bool:
    """Whether ``cards`` beat the set ``winning``: each card beats a different card of it under
    some one-to-one pairing (a bipartite matching, found by augmenting paths)."""
    size = len(winning)
    if len(cards) != size:
        return False
    beaten_by = _BEATEN_BY[trump]
    if size == 1:
        return cards[0] in beaten_by[winning[0]]
    edges = [[target for target in range(size) if card in beaten_by[winning[target]]] for card in cards]
    matched = [-1] * size  # winning index -> index of the card beating it

    def augment(card: int, seen: list[bool]) -> bool:
        for target in edges[card]:
            if not seen[target]:
                seen[target] = True
                if matched[target] < 0 or augment(matched[target], seen):
                    matched[target] = card
                    return True
        return False

    return all(edges[card] and augment(card, [False] * size) for card in range(size))


_BEATEN_BY = {
    trump: {other: frozenset(card for card in DECK if beats(card, other, trump)) for other in DECK}
    for trump in SUITS
}
"""_BEATEN_BY[trump][card]: the cards that beat ``card``."""


def team_of(seat: int) -> int:
    """Team 0 is seats 0 and 2, team 1 is seats 1 and 3 (partners sit opposite)."""
    return seat % 2


class Phase(StrEnum):
    LEAD = "lead"
    """The leader plays 1..4 cards of one suit."""
    PLAY = "play"
    """The next player beats the winning set or discards as many cards."""
    MOLODKA = "molodka"
    """This seat may declare a molodka now, out of turn; only the asked seat ever sees this phase."""
    OVER = "over"
    """The series is over."""


# --- actions ---------------------------------------------------------------------------------
# An action's cards are a set: given in any order (a tuple or a list of card strings), they are
# kept in the engine's card order (``sort_cards``), as ``legal_actions`` lists them, so equal
# sets make equal actions.


@dataclass(frozen=True, slots=True)
class _CardSet:
    """An action that plays a set of cards (the base of the four that do)."""

    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        cards: object = self.cards
        if isinstance(cards, tuple | list) and all(
            isinstance(card, str) and card in _ORDER for card in cards
        ):
            object.__setattr__(self, "cards", sort_cards(cards))


@dataclass(frozen=True, slots=True)
class Lead(_CardSet):
    """Open the trick with these cards, face up: 1..4 cards of one suit."""


@dataclass(frozen=True, slots=True)
class Beat(_CardSet):
    """Play these cards face up, beating the trick's currently winning set."""


@dataclass(frozen=True, slots=True)
class Discard(_CardSet):
    """Play these cards face down (as many as were led); always allowed."""


@dataclass(frozen=True, slots=True)
class Molodka(_CardSet):
    """Declare a molodka: the four cards of one suit this seat holds, played out of turn as a new lead."""


@dataclass(frozen=True, slots=True)
class Decline:
    """Do not declare a molodka in this window."""


KozelAction = Lead | Beat | Discard | Molodka | Decline
DECLINE = Decline()
_CardAction = TypeVar("_CardAction", Lead, Beat, Discard, Molodka)


# --- observation -----------------------------------------------------------------------------


class Play(NamedTuple):
    """One play to a trick, as everyone saw it."""

    seat: int
    cards: tuple[str, ...]
    """The cards, if played face up; empty for a discard."""
    discarded: int
    """How many cards were discarded face down (0 for a face-up play)."""
    molodka: bool


class Trick(NamedTuple):
    """A finished trick of the current deal, as everyone saw it."""

    plays: tuple[Play, ...]
    """The plays that stood, lead first."""
    winner: int
    returned: tuple[Play, ...]
    """Plays a molodka took back (their cards went back to their owners), in the order made."""


class DealSummary(NamedTuple):
    """How a finished deal went."""

    deal_number: int
    dealer: int
    trump_card: str
    points: tuple[int, ...]
    """Card points per team (they add up to 120)."""
    team_tricks: tuple[int, ...]
    defeat_awarded: tuple[int, ...]
    """Defeat points each team got for this deal."""
    last_trick_winner: int
    """The seat that took the last trick: it leads the next deal."""


class KozelObservation(NamedTuple):
    seat: int
    team: int
    phase: Phase
    """What this seat is asked now: ``molodka`` only for the seat being asked about a molodka;
    every other seat sees the regular phase (``lead``/``play``)."""
    to_act: int
    """The seat deciding now as this seat knows it: itself while asked about a molodka, otherwise
    the seat whose regular turn it is; -1 once the series is over."""
    turn: int
    """The seat whose regular turn it is (to lead or to play); -1 once the series is over."""
    leader: int
    """The seat that was to lead this trick (the original leader); -1 once the series is over."""
    trump_card: str
    trump_in_stock: bool
    trump_depth: int
    """Cards above the trump card in the stock; -1 once it has been drawn."""
    trump_holder: int
    """The seat that drew the trump card; -1 while it is in the stock."""
    stock_count: int
    hand: tuple[str, ...]
    """This seat's cards, in the engine's card order."""
    hand_counts: tuple[int, ...]
    trick: tuple[Play, ...]
    """The current trick's plays, lead first."""
    returned: tuple[Play, ...]
    """Plays of the current trick that a molodka took back."""
    winning_seat: int
    """The seat whose cards win the current trick so far; -1 before the lead."""
    tricks: tuple[Trick, ...]
    """The finished tricks of this deal, oldest first."""
    my_discards: tuple[str, ...]
    """Cards this seat discarded face down in this deal (including on the table now)."""
    team_tricks: tuple[int, ...]
    """Tricks taken by each team in this deal."""
    defeat_points: tuple[int, ...]
    deal_number: int
    """0-based number of the current deal in the series."""
    dealer: int
    previous_deal: DealSummary | None
    """How the previous deal ended; None during the first deal."""


# --- configuration and state -----------------------------------------------------------------


@dataclass(frozen=True)
class KozelConfig(GameConfig):
    series_target: int = 12
    """Defeat points that lose the series."""
    game_cap: int = 50
    """Deals after which the series stops."""
    action_cap: int = 20_000
    """Actions after which the series stops (counts every applied action of the whole series)."""


class _Placed(NamedTuple):
    """A play as it really is: the cards of a discard included."""

    seat: int
    cards: tuple[str, ...]
    face_up: bool
    molodka: bool

    def public(self) -> Play:
        if self.face_up:
            return Play(self.seat, self.cards, 0, self.molodka)
        return Play(self.seat, (), len(self.cards), False)


class _TrickRecord(NamedTuple):
    plays: tuple[_Placed, ...]
    winner: int


class KozelState(GameState[KozelAction, KozelObservation]):
    ask_everyone = True
    """A window asks every seat that may still play to the trick, in priority order, and a seat
    that cannot declare has ``Decline`` as its only action: who is asked, and so how long the
    others wait, is then the same whoever holds a molodka. Version 1 asked only the seats that
    could declare (``Kozel1``)."""

    def __init__(self, config: KozelConfig) -> None:
        self.config = config
        self.num_seats = 4
        self.defeat = [0, 0]
        self.deals: list[DealSummary] = []
        self.deal_number = 0
        self.phase = Phase.LEAD
        self.actions = 0
        self.end = ""
        """Why the series ended: ``target``, ``game_cap`` or ``action_cap``."""
        # The deal.
        self.dealer = 0
        self.trump_card = ""
        self.trump = ""
        self.stock: list[str] = []
        """The stock, top card last."""
        self.trump_index = 0
        """Where the trump card lies in ``stock``; it is still there while ``trump_index < len(stock)``."""
        self.trump_holder = -1
        self.hands: list[list[str]] = [[] for _ in range(4)]
        self.piles: list[list[str]] = [[], []]
        self.team_tricks = [0, 0]
        self.tricks: list[_TrickRecord] = []
        self.public_tricks: tuple[Trick, ...] = ()
        self.discards: list[list[str]] = [[] for _ in range(4)]
        self.traced: set[str] = set()
        """Hidden cards whose whereabouts are public: the trump card once drawn, and face-up cards a
        molodka gave back. ``reshuffle_hidden`` leaves them where they are."""
        self.last_winner = -1
        # The trick.
        self.leader = 0
        self.turn = 0
        self.asking = -1
        """The seat being asked about a molodka, or -1."""
        self.holding = [False] * 4
        """Seats that held cards when the trick began: they, and only they, play to it."""
        self.played = [False] * 4
        self.plays: list[_Placed] = []
        self.table: tuple[Play, ...] = ()
        """``plays`` as everyone sees them."""
        self.returned: tuple[Play, ...] = ()
        self.winning_seat = -1
        self.winning_cards: tuple[str, ...] = ()
        self.lead_limit = 0
        self.lead_count = 0
        self.molodka_allowed = False
        """Every seat holding cards held four when the trick began, and no molodka was played yet."""

    # -- setting up --

    def _start_deal(self, leader: int, rng: random.Random) -> None:
        self.dealer = (leader - 1) % 4
        deck = list(DECK)
        rng.shuffle(deck)
        # One card at a time from the dealer's left, dealer last; the rest is the stock, top first.
        hands: list[list[str]] = [[] for _ in range(4)]
        for position in range(4 * HAND_SIZE):
            hands[(self.dealer + 1 + position) % 4].append(deck[position])
        stock = deck[4 * HAND_SIZE :]
        stock.reverse()
        trump_index = rng.randrange(len(stock))
        self._set_deal(hands, stock, trump_index, stock[trump_index])
        self._start_trick(leader)

    def _set_deal(self, hands: list[list[str]], stock: list[str], trump_index: int, trump_card: str) -> None:
        self.hands = [list(sort_cards(hand)) for hand in hands]
        self.stock = stock
        self.trump_index = trump_index
        self.trump_card = trump_card
        self.trump = trump_card[1]
        self.trump_holder = -1
        self.piles = [[], []]
        self.team_tricks = [0, 0]
        self.tricks = []
        self.public_tricks = ()
        self.discards = [[] for _ in range(4)]
        self.traced = set()

    def _start_trick(self, leader: int) -> None:
        self.leader = self.turn = leader
        self.phase = Phase.LEAD
        counts = [len(hand) for hand in self.hands]
        self.holding = [count > 0 for count in counts]
        self.played = [False] * 4
        self.plays = []
        self.table = ()
        self.returned = ()
        self.winning_seat = -1
        self.winning_cards = ()
        self.lead_limit = min(count for count in counts if count)
        self.lead_count = 0
        self.molodka_allowed = all(count in (0, HAND_SIZE) for count in counts)
        self._ask_from(0)

    # -- molodka windows --

    def _can_declare(self, seat: int) -> bool:
        hand = self.hands[seat]
        return (
            not self.played[seat]
            and len(hand) == HAND_SIZE
            and hand[0][1] == hand[1][1] == hand[2][1] == hand[3][1]
        )

    def _ask_from(self, distance: int) -> None:
        """Ask the first seat to be asked in this window, clockwise from the original leader at
        ``distance`` on; or nobody. Each window scans forward only, so it asks each seat once."""
        self.asking = -1
        if not self.molodka_allowed:
            return
        for step in range(distance, 4):
            seat = (self.leader + step) % 4
            may_play = self.holding[seat] and not self.played[seat]
            if (self.ask_everyone and may_play) or self._can_declare(seat):
                self.asking = seat
                return

    # -- GameState --

    def to_act(self) -> int | None:
        if self.phase is Phase.OVER:
            return None
        return self.asking if self.asking >= 0 else self.turn

    def legal_actions(self) -> list[KozelAction]:
        if self.phase is Phase.OVER:
            return []
        if self.asking >= 0:
            if not self._can_declare(self.asking):
                return [DECLINE]
            return [DECLINE, _action(Molodka, tuple(self.hands[self.asking]))]
        hand = self.hands[self.turn]
        actions: list[KozelAction] = []
        if self.phase is Phase.LEAD:
            # The hand is in card order, so each suit is a run, and combinations of one run come
            # before those of the next: the same order as all combinations of the hand, by size.
            runs: list[list[str]] = []
            for card in hand:
                if runs and runs[-1][0][1] == card[1]:
                    runs[-1].append(card)
                else:
                    runs.append([card])
            for size in range(1, self.lead_limit + 1):
                for run in runs:
                    actions.extend(_action(Lead, cards) for cards in combinations(run, size))
            return actions
        size, winning = self.lead_count, self.winning_cards
        beaten_by = _BEATEN_BY[self.trump]
        if size == 1:
            beatable = beaten_by[winning[0]]
            actions.extend(_action(Beat, (card,)) for card in hand if card in beatable)
        elif sum(1 for card in hand if any(card in beaten_by[other] for other in winning)) >= size:
            actions.extend(
                _action(Beat, cards)
                for cards in combinations(hand, size)
                if beats_all(cards, winning, self.trump)
            )
        actions.extend(_action(Discard, cards) for cards in combinations(hand, size))
        return actions

    def apply(self, action: KozelAction, rng: random.Random) -> None:
        if self.phase is Phase.OVER:
            raise IllegalAction("the series is over")
        if self.asking >= 0:
            seat = self.asking
            if isinstance(action, Decline):
                self._ask_from((seat - self.leader) % 4 + 1)
            elif isinstance(action, Molodka):
                cards = self._held(seat, action.cards)
                if len(cards) != HAND_SIZE or not self._can_declare(seat):
                    raise IllegalAction(f"{action!r}: a molodka is four cards of one suit")
                self._declare(seat, cards, rng)
            else:
                raise IllegalAction(
                    f"{action!r}: seat {seat} is asked about a molodka: declare it (Molodka) or Decline"
                )
        elif self.phase is Phase.LEAD:
            if not isinstance(action, Lead):
                raise IllegalAction(self._not_now(action, "must lead (Lead)"))
            cards = self._held(self.turn, action.cards)
            if not 1 <= len(cards) <= self.lead_limit:
                raise IllegalAction(
                    f"{action!r}: lead 1..{self.lead_limit} cards (the smallest hand still holding cards)"
                )
            if any(card[1] != cards[0][1] for card in cards):
                raise IllegalAction(f"{action!r}: the cards of a lead must all be of one suit")
            self.lead_count = len(cards)
            self.phase = Phase.PLAY
            self._play(self.turn, cards, True, rng)
        else:
            if not isinstance(action, Beat | Discard):
                raise IllegalAction(self._not_now(action, "must beat (Beat) or discard (Discard)"))
            cards = self._held(self.turn, action.cards)
            if len(cards) != self.lead_count:
                raise IllegalAction(
                    f"{action!r}: play exactly {self.lead_count} card(s), as many as were led"
                )
            if isinstance(action, Beat) and not beats_all(cards, self.winning_cards, self.trump):
                raise IllegalAction(
                    f"{action!r}: these cards do not beat the winning set {list(self.winning_cards)} "
                    f"(trump {self.trump}): each must beat a different card of it"
                )
            self._play(self.turn, cards, isinstance(action, Beat), rng)
        self.actions += 1
        if self.phase is not Phase.OVER and self.actions >= self.config.action_cap:
            self.phase = Phase.OVER
            self.asking = -1
            self.end = "action_cap"

    def _not_now(self, action: object, wanted: str) -> str:
        if isinstance(action, Molodka | Decline):
            return f"{action!r}: seat {self.turn} is not being asked about a molodka now; it {wanted}"
        return f"{action!r}: seat {self.turn} {wanted}"

    def _held(self, seat: int, cards: object) -> tuple[str, ...]:
        """``cards`` checked: a non-empty tuple of distinct cards of ``seat``'s hand (in card order,
        as the actions keep them)."""
        if not isinstance(cards, tuple) or not cards or not all(isinstance(card, str) for card in cards):
            raise IllegalAction(f"{cards!r}: give the cards as a non-empty tuple of card strings like '7S'")
        hand = self.hands[seat]
        missing = [card for card in cards if card not in hand]
        if missing:
            raise IllegalAction(f"seat {seat} does not hold {', '.join(missing)} (hand: {', '.join(hand)})")
        if len(set(cards)) != len(cards):
            raise IllegalAction(f"{list(cards)}: a card is listed twice")
        return cards

    def _play(self, seat: int, cards: tuple[str, ...], face_up: bool, rng: random.Random) -> None:
        hand = self.hands[seat]
        for card in cards:
            hand.remove(card)
        placed = _Placed(seat, cards, face_up, False)
        self.plays.append(placed)
        self.table += (placed.public(),)
        self.played[seat] = True
        if face_up:
            self.winning_seat, self.winning_cards = seat, cards
        else:
            self.discards[seat].extend(cards)
        self._next_player(seat, rng)

    def _declare(self, seat: int, cards: tuple[str, ...], rng: random.Random) -> None:
        """A molodka: the table cards go back to their owners, and the trick restarts with it as the lead."""
        for placed in self.plays:
            self.hands[placed.seat].extend(placed.cards)
            self.hands[placed.seat].sort(key=_ORDER.__getitem__)
            if placed.face_up:
                self.traced.update(placed.cards)
            else:
                del self.discards[placed.seat][-len(placed.cards) :]
        self.returned += self.table
        self.plays = []
        self.table = ()
        self.played = [False] * 4
        self.molodka_allowed = False
        self.lead_count = HAND_SIZE
        self.phase = Phase.PLAY
        for card in cards:
            self.hands[seat].remove(card)
        self.plays.append(_Placed(seat, cards, True, True))
        self.table = (Play(seat, cards, 0, True),)
        self.played[seat] = True
        self.winning_seat, self.winning_cards = seat, cards
        self._next_player(seat, rng)

    def _next_player(self, seat: int, rng: random.Random) -> None:
        for step in range(1, 4):
            other = (seat + step) % 4
            if self.holding[other] and not self.played[other]:
                self.turn = other
                self._ask_from(0)
                return
        self._finish_trick(rng)

    def _finish_trick(self, rng: random.Random) -> None:
        winner = self.winning_seat
        team = team_of(winner)
        for placed in self.plays:
            self.piles[team].extend(placed.cards)
        self.team_tricks[team] += 1
        self.tricks.append(_TrickRecord(tuple(self.plays), winner))
        self.public_tricks += (Trick(self.table, winner, self.returned),)
        self.last_winner = winner
        self.plays, self.table, self.returned = [], (), ()
        self.winning_seat, self.winning_cards = -1, ()
        self._draw(winner)
        for step in range(4):
            seat = (winner + step) % 4
            if self.hands[seat]:
                self._start_trick(seat)
                return
        self._finish_deal(rng)

    def _draw(self, winner: int) -> None:
        """One card at a time from the top of the stock, clockwise from the winner, until everyone
        has four cards or the stock is empty."""
        hands, stock = self.hands, self.stock
        while stock and any(len(hand) < HAND_SIZE for hand in hands):
            for step in range(4):
                seat = (winner + step) % 4
                if stock and len(hands[seat]) < HAND_SIZE:
                    card = stock.pop()
                    if card == self.trump_card:
                        self.trump_holder = seat
                        self.traced.add(card)
                    hands[seat].append(card)
        for hand in hands:
            hand.sort(key=_ORDER.__getitem__)

    def _finish_deal(self, rng: random.Random) -> None:
        points = (card_points(self.piles[0]), card_points(self.piles[1]))
        awarded = [0, 0]
        if points[0] != points[1]:  # 60-60, "eggs": nobody scores
            loser = 0 if points[0] < points[1] else 1
            if points[loser] > 30:
                awarded[loser] = 2
            else:
                awarded[loser] = 4 if self.team_tricks[loser] else 6
        for team in (0, 1):
            self.defeat[team] += awarded[team]
        self.deals.append(
            DealSummary(
                deal_number=self.deal_number,
                dealer=self.dealer,
                trump_card=self.trump_card,
                points=points,
                team_tricks=tuple(self.team_tricks),
                defeat_awarded=tuple(awarded),
                last_trick_winner=self.last_winner,
            )
        )
        if max(self.defeat) >= self.config.series_target:
            self._over("target")
        elif len(self.deals) >= self.config.game_cap:
            self._over("game_cap")
        else:
            self.deal_number += 1
            self._start_deal(self.last_winner, rng)

    def _over(self, why: str) -> None:
        self.phase = Phase.OVER
        self.end = why
        self.asking = -1

    # -- views --

    def observation(self, seat: int) -> KozelObservation:
        over = self.phase is Phase.OVER
        asked = self.asking == seat
        in_stock = self.trump_index < len(self.stock)
        return KozelObservation(
            seat=seat,
            team=seat % 2,
            phase=Phase.MOLODKA if asked else self.phase,
            to_act=-1 if over else seat if asked else self.turn,
            turn=-1 if over else self.turn,
            leader=-1 if over else self.leader,
            trump_card=self.trump_card,
            trump_in_stock=in_stock,
            trump_depth=len(self.stock) - 1 - self.trump_index if in_stock else -1,
            trump_holder=self.trump_holder,
            stock_count=len(self.stock),
            hand=tuple(self.hands[seat]),
            hand_counts=tuple(map(len, self.hands)),
            trick=self.table,
            returned=self.returned,
            winning_seat=self.winning_seat,
            tricks=self.public_tricks,
            my_discards=tuple(self.discards[seat]),
            team_tricks=tuple(self.team_tricks),
            defeat_points=tuple(self.defeat),
            deal_number=self.deal_number,
            dealer=self.dealer,
            previous_deal=self.deals[-1] if self.deals else None,
        )

    def result(self) -> GameResult:
        if self.phase is not Phase.OVER:
            raise IllegalAction("the series is not over")
        defeat = self.defeat
        ranks = ranks_from_keys([-defeat[seat % 2] for seat in range(4)])
        winning_team = -1  # a draw
        if defeat[0] != defeat[1]:
            winning_team = 0 if defeat[0] < defeat[1] else 1
        detail = {
            "end": self.end,
            "winning_team": winning_team,
            "teams": [list(team) for team in TEAMS],
            "defeat_points": list(defeat),
            "deals_played": len(self.deals),
            "deals": [_summary_json(summary) for summary in self.deals],
        }
        return GameResult(ranks=ranks, scores=_scores(ranks), detail=detail)

    def reveal(self) -> Mapping[str, Any]:
        in_stock = self.trump_index < len(self.stock)
        return {
            "deal_number": self.deal_number,
            "trump_card": self.trump_card,
            "hands": [list(hand) for hand in self.hands],
            "stock": self.stock[::-1],
            "trump_depth": len(self.stock) - 1 - self.trump_index if in_stock else -1,
            "trick": [
                {"seat": p.seat, "cards": list(p.cards), "face_up": p.face_up, "molodka": p.molodka}
                for p in self.plays
            ],
            "discards": [list(cards) for cards in self.discards],
            "piles": [list(pile) for pile in self.piles],
            "pile_points": [card_points(pile) for pile in self.piles],
            "molodka_asking": self.asking,
        }

    def clone(self) -> KozelState:
        flat = ("defeat", "deals", "stock", "team_tricks", "tricks", "holding", "played", "plays")
        other = self.copy_lists(flat, nested=("hands", "piles", "discards"))
        other.traced = set(self.traced)
        return other

    def reshuffle_hidden(self, seat: int, rng: random.Random) -> KozelState:
        """A copy in which every card ``seat`` cannot place is re-dealt among the places it cannot see.

        Hidden from ``seat``: the other hands, the stock (but the trump card keeps its public place),
        and the other seats' face-down discards (on the table and in the team piles). Counts stay
        as they are. Cards whose whereabouts are public (``traced``) stay put, and so does the hand
        of a seat being asked about a molodka, so that the copy is still in the same window.
        """
        other = self.clone()
        fixed = self.traced | {self.trump_card}
        kept = {seat, self.asking}
        pool = [card for card in self.stock if card not in fixed]
        for owner in range(4):
            if owner not in kept:
                pool += [card for card in self.hands[owner] if card not in fixed]
            if owner != seat:
                pool += [card for card in self.discards[owner] if card not in fixed]
        shuffled = list(pool)
        rng.shuffle(shuffled)
        mapping = dict(zip(pool, shuffled, strict=True))
        if not mapping:
            return other

        def move(cards: Iterable[str]) -> list[str]:
            return [mapping.get(card, card) for card in cards]

        other.stock = move(self.stock)
        other.hands = [sorted(move(hand), key=_ORDER.__getitem__) for hand in self.hands]
        other.discards = [move(cards) for cards in self.discards]
        other.piles = [move(pile) for pile in self.piles]
        other.plays = [_moved(placed, mapping) for placed in self.plays]
        other.tricks = [
            _TrickRecord(tuple(_moved(placed, mapping) for placed in record.plays), record.winner)
            for record in self.tricks
        ]
        return other


_ACTIONS: dict[tuple[type, tuple[str, ...]], Any] = {}
"""Every card action built so far, shared: equal actions are the same object, cheap to build and
to find in a list. At most a few hundred thousand (every set of up to four cards, per type)."""


def _action(kind: type[_CardAction], cards: tuple[str, ...]) -> _CardAction:
    action: _CardAction | None = _ACTIONS.get((kind, cards))
    if action is None:
        action = _ACTIONS[kind, cards] = kind(cards)
    return action


def _moved(placed: _Placed, mapping: Mapping[str, str]) -> _Placed:
    if placed.face_up:
        return placed
    return placed._replace(cards=sort_cards(mapping.get(card, card) for card in placed.cards))


def _scores(ranks: Sequence[int]) -> tuple[float, ...]:
    """The winning team's seats score 1 each and the losers 0; on a draw every seat scores 0.5."""
    return first_place_shares(ranks, [seat % 2 for seat in range(len(ranks))])


def _summary_json(summary: DealSummary) -> dict[str, Any]:
    return {
        name: list(value) if isinstance(value, tuple) else value for name, value in summary._asdict().items()
    }


class Kozel(Game[KozelConfig, KozelAction, KozelObservation]):
    name = "kozel"
    version = 2
    ask_everyone = True
    """``KozelState.ask_everyone`` for the games of this version."""
    title = "Goat (Kozel)"
    min_seats = 4
    max_seats = 4
    config_type = KozelConfig
    action_types = (Lead, Beat, Discard, Molodka, Decline)
    rules_path = "arena/games/kozel/RULES.md"
    private_fields = frozenset({"seat", "team", "phase", "to_act", "hand", "my_discards"})
    teams = tuple(team_of(seat) for seat in range(4))
    listed = 3
    builtin_bots = {
        "random": "bots:RandomBot",
        "heuristic": "bots:HeuristicBot",
        "search": "search:SearchBot",
    }

    def scores_for(self, ranks: Sequence[int], detail: Mapping[str, Any]) -> tuple[float, ...]:
        return _scores(ranks)

    def new_state(
        self, config: KozelConfig, num_seats: int, rng: random.Random, dealer: int | None = None
    ) -> KozelState:
        self.check_seats(num_seats, dealer)  # none: the seed draws the first, the series deals on itself
        _check_config(config)
        state = KozelState(config)
        state.ask_everyone = self.ask_everyone
        dealer = rng.randrange(4)
        state._start_deal((dealer + 1) % 4, rng)
        return state


class Kozel1(Kozel):
    """Version 1: a window asked only the seats that could declare, so the time a seat waited for
    its next request told it when another seat held a molodka. Kept to replay its matches."""

    version = 1
    ask_everyone = False


def _check_config(config: KozelConfig) -> None:
    if config.series_target < 1 or config.game_cap < 1 or config.action_cap < 1:
        raise BadConfig("kozel's series_target, game_cap and action_cap must be at least 1")


def arranged_deal(
    hands: Sequence[Iterable[str]],
    stock: Sequence[str],
    trump_card: str,
    leader: int,
    *,
    piles: Sequence[Iterable[str]] = ((), ()),
    team_tricks: Sequence[int] | None = None,
    defeat_points: Sequence[int] = (0, 0),
    deal_number: int = 0,
    config: KozelConfig | None = None,
) -> KozelState:
    """A deal set up card by card, at the start of a trick that ``leader`` leads: the test and
    analysis hook (scenario tests use it; it draws nothing from any random source).

    ``hands``: each seat's cards (at most four). ``stock``: the stock, top card first.
    ``trump_card``: the shown card; if it is in ``stock`` it lies there, otherwise it counts as
    drawn earlier (by the seat holding it, if any). ``piles``: cards each team took in earlier
    tricks of this deal, which count ``team_tricks`` tricks (default: one per non-empty pile).
    Every one of the 36 cards must be in exactly one of hands, stock and piles. Later deals of
    the series are dealt from the ``rng`` passed to ``apply``.
    """
    config = config or KozelConfig()
    _check_config(config)
    hand_lists = [list(hand) for hand in hands]
    pile_lists = [list(pile) for pile in piles]
    everything = [card for hand in hand_lists for card in hand] + list(stock) + pile_lists[0] + pile_lists[1]
    if len(hand_lists) != 4 or len(pile_lists) != 2:
        raise BadConfig("give four hands and two piles")
    if sorted(everything, key=lambda card: _ORDER.get(card, -1)) != list(DECK):
        raise BadConfig("hands, stock and piles must hold each of the 36 cards exactly once")
    if any(len(hand) > HAND_SIZE for hand in hand_lists) or not any(hand_lists):
        raise BadConfig("hands hold at most four cards, and someone must hold a card")
    if not hand_lists[leader]:
        raise BadConfig(f"the leader, seat {leader}, holds no card")
    if stock and any(len(hand) != HAND_SIZE for hand in hand_lists):
        raise BadConfig("while the stock lasts every hand holds four cards")
    state = KozelState(config)
    state.defeat = list(defeat_points)
    state.deal_number = deal_number
    state.dealer = (leader - 1) % 4
    top_last = list(stock)[::-1]
    in_stock = trump_card in top_last
    # A trump card not in the stock lies "below" it: trump_index >= len(stock) means drawn.
    state._set_deal(
        hand_lists, top_last, top_last.index(trump_card) if in_stock else len(top_last), trump_card
    )
    if not in_stock:
        for seat, hand in enumerate(hand_lists):
            if trump_card in hand:
                state.trump_holder = seat
                state.traced.add(trump_card)
    state.piles = pile_lists
    if team_tricks is None:
        team_tricks = [1 if pile else 0 for pile in pile_lists]
    state.team_tricks = list(team_tricks)
    state._start_trick(leader)
    return state
