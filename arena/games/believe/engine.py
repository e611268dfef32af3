"""Believe / Don't believe: the rules as a pure state machine. The rules page is ``RULES.md`` beside it.

Placements are too many to list (up to 8 cards from a hand of 30, times a claim), so the game does
not list all its actions (``Game.lists_all_actions`` is False): ``legal_actions()`` lists only the
calls, ``apply`` judges every action, and ``random_action`` draws from all of them. Bots use the
helpers at the end of this module (``place_rule``, ``place_error``, ``random_legal_action``) to
know which placements are legal from their observation alone.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.games.base import (
    BadConfig,
    Game,
    GameConfig,
    GameResult,
    GameState,
    IllegalAction,
    ranks_from_keys,
    seats_below,
)

KIND_NAMES = ("mushroom", "berry", "leaf", "acorn", "flower", "apple", "pear", "cherry")
"""Kind ``k`` of the deck is ``KIND_NAMES[k]``; a deck of K kinds uses the first K names."""
MAX_PLACE = 8
"""The most cards one placement may hold (the source's "1 to 8 cards")."""


def kind_name(kind: int) -> str:
    return KIND_NAMES[kind] if 0 <= kind < len(KIND_NAMES) else f"kind {kind}"


# --- actions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Place:
    """Put ``cards`` (kind numbers, from one's hand) face down on the pile, claiming they are all
    of kind ``claim``. The count is always the true one; only the kind can be a lie.

    The constructor sorts ``cards``, so two placements of the same cards compare equal.
    """

    cards: tuple[int, ...]
    claim: int

    def __post_init__(self) -> None:
        try:
            ordered = tuple(sorted(self.cards))
        except TypeError:
            return  # not a sequence of kind numbers: ``apply`` says what is wrong
        object.__setattr__(self, "cards", ordered)


@dataclass(frozen=True, slots=True)
class Believe:
    """Call "I believe" on the previous player's last placement."""


@dataclass(frozen=True, slots=True)
class Disbelieve:
    """Call "I don't believe" on the previous player's last placement."""


BelieveAction = Place | Believe | Disbelieve
BELIEVE = Believe()
DISBELIEVE = Disbelieve()
CALLS: tuple[BelieveAction, ...] = (BELIEVE, DISBELIEVE)


# --- observation ---------------------------------------------------------------------------
# Observations are immutable snapshots built for every decision: NamedTuples, which are cheap to
# build. Everything in them is public except ``hand`` and ``taken``, which only the seat sees.


class Claim(NamedTuple):
    """One placement on the open pile, as everyone saw it: who placed how many cards (``size``;
    ``count`` on the wire, a name a NamedTuple field cannot take)."""

    seat: int
    size: int


class Check(NamedTuple):
    """A resolved call, as everyone saw it."""

    caller: int
    believed: bool
    """True for "I believe", False for "I don't believe"."""
    placer: int
    """Whose placement was checked (the previous player)."""
    claimed_kind: int
    revealed: tuple[int, ...]
    """The checked placement's cards, turned face up for everyone (sorted kind numbers)."""
    taker: int
    """Who took the whole pile into hand; -1 when the pile left the game (believed and true)."""
    pile_size: int
    """Cards in the whole pile, the revealed ones included."""

    @property
    def truthful(self) -> bool:
        return all(card == self.claimed_kind for card in self.revealed)


class PlaceRule(NamedTuple):
    """Which placements are legal now: 1..``max_cards`` cards from hand (none when 0), claimed as
    the open pile's kind if ``kind_fixed``, otherwise as any kind."""

    max_cards: int
    kind_fixed: bool


class BelieveObservation(NamedTuple):
    seat: int
    to_act: int
    """The seat deciding now (-1 when the game is over)."""
    dealer: int
    hand: tuple[int, ...]
    """``hand[k]``: copies of kind ``k`` in this seat's hand (one entry per kind of the deck)."""
    hand_counts: tuple[int, ...]
    """Cards held by every seat, in seat order."""
    places: tuple[int, ...]
    """Finishing place of every seat (1 = first out; seats leaving together share it); 0 while
    still playing. At the end the loser gets the last place."""
    pile_open: bool
    pile_kind: int
    """The open pile's claimed kind; -1 when no pile is open."""
    claims: tuple[Claim, ...]
    """Every placement on the open pile, oldest first."""
    checks: tuple[Check, ...]
    """Every call so far in this game, oldest first."""
    taken: tuple[tuple[int, ...], ...]
    """Every pile this seat took into its hand, oldest first: all its cards (sorted kind numbers)."""
    set_aside: int
    """Cards set aside face down at the deal, out of play."""

    @property
    def kinds(self) -> int:
        return len(self.hand)

    @property
    def hand_size(self) -> int:
        return sum(self.hand)

    @property
    def my_cards(self) -> tuple[int, ...]:
        """This seat's hand as sorted kind numbers (one entry per card)."""
        return tuple(kind for kind, count in enumerate(self.hand) for _ in range(count))

    @property
    def pile_size(self) -> int:
        return sum(claim.size for claim in self.claims)

    @property
    def discarded(self) -> int:
        """Cards that left the game in believed-and-true piles."""
        return sum(check.pile_size for check in self.checks if check.taker < 0)

    @property
    def total_cards(self) -> int:
        """The deck size (kinds x copies): every card is held, on the pile, discarded or set aside."""
        return sum(self.hand_counts) + self.pile_size + self.discarded + self.set_aside

    @property
    def copies(self) -> int:
        return self.total_cards // self.kinds


# --- configuration and state ---------------------------------------------------------------


@dataclass(frozen=True)
class BelieveConfig(GameConfig):
    kinds: int = 8
    copies: int = 8
    deal_leftovers: bool = False
    """Deal the cards left over by the even deal one each from the dealer's left, instead of
    setting them aside."""
    action_cap: int = 1000


def _cards(counts: Sequence[int]) -> list[int]:
    return [kind for kind, count in enumerate(counts) for _ in range(count)]


class BelieveState(GameState[BelieveAction, BelieveObservation]):
    def __init__(self, config: BelieveConfig, num_seats: int, deck: Sequence[int], dealer: int) -> None:
        """Deal ``deck`` (already shuffled; index 0 is the top): the even deal one card at a time
        clockwise from seat 1, whoever deals (so that a duplicate deal gives each seat the same hand
        whoever the previous loser made dealer), then any leftovers one each from the dealer's left
        (``deal_leftovers``) or set aside."""
        self.config = config
        self.num_seats = num_seats
        self.kinds = config.kinds
        self.dealer = dealer
        self.hands = [[0] * config.kinds for _ in range(num_seats)]
        even = len(deck) // num_seats * num_seats
        for index, card in enumerate(deck[:even]):
            self.hands[(1 + index) % num_seats][card] += 1
        self.set_aside = [0] * config.kinds
        for index, card in enumerate(deck[even:]):
            if config.deal_leftovers:
                self.hands[(dealer + 1 + index) % num_seats][card] += 1
            else:
                self.set_aside[card] += 1
        self.counts = [sum(hand) for hand in self.hands]
        self.pile: list[tuple[int, tuple[int, ...]]] = []
        """The open pile's placements, oldest first: (placer, cards)."""
        self.pile_kind = -1
        self.claims: tuple[Claim, ...] = ()
        self.discard: list[tuple[int, tuple[int, ...], bool]] = []
        """Placements of piles that left the game: (placer, cards, revealed by the call)."""
        self.checks: tuple[Check, ...] = ()
        self.taken: list[tuple[tuple[int, ...], ...]] = [() for _ in range(num_seats)]
        self.places = [0] * num_seats
        self.turn = self.dealer
        self.over = False
        self.capped = False
        self.loser = -1
        self.actions = 0

    # -- helpers --

    def _next_in(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that has not left the game."""
        for step in range(1, self.num_seats + 1):
            other = (seat + step) % self.num_seats
            if not self.places[other]:
                return other
        raise AssertionError("no seat left in the game")

    # -- GameState --

    def to_act(self) -> int | None:
        return None if self.over else self.turn

    def legal_actions(self) -> list[BelieveAction]:
        """The calls, when a pile is open; placements are never listed (see ``place_rule``)."""
        if self.over or self.pile_kind < 0:
            return []
        return list(CALLS)

    def random_action(self, rng: random.Random) -> BelieveAction:
        if self.over:
            raise IllegalAction("the game is over")
        return _random_action(self.hands[self.turn], self.pile_kind, rng)

    def check(self, action: BelieveAction) -> None:
        if self.over:
            raise IllegalAction("the game is over")
        seat = self.turn
        if isinstance(action, Place):
            error = place_error(self.hands[seat], self.pile_kind, action)
            if error is not None:
                raise IllegalAction(f"{action!r}: {error}")
        elif isinstance(action, Believe | Disbelieve):
            if self.pile_kind < 0:
                most = min(MAX_PLACE, self.counts[seat])
                raise IllegalAction(
                    f"{action!r}: no pile is open, there is nothing to call: place 1..{most} cards"
                )
        else:
            raise IllegalAction(f"{action!r}: not a believe action (Place, Believe or Disbelieve)")

    def apply(self, action: BelieveAction, rng: random.Random) -> None:
        self.check(action)
        if isinstance(action, Place):
            self._place(self.turn, action)
        else:
            self._resolve(self.turn, believed=isinstance(action, Believe))
        self.actions += 1
        if not self.over and self.actions >= self.config.action_cap:
            self.capped = True
            self.over = True

    def _place(self, seat: int, action: Place) -> None:
        hand = self.hands[seat]
        for card in action.cards:
            hand[card] -= 1
        self.counts[seat] -= len(action.cards)
        self.pile.append((seat, action.cards))
        if self.pile_kind < 0:
            self.pile_kind = action.claim
        self.claims = (*self.claims, Claim(seat, len(action.cards)))
        self.turn = self._next_in(seat)

    def _resolve(self, caller: int, believed: bool) -> None:
        placer, checked = self.pile[-1]
        kind = self.pile_kind
        truthful = all(card == kind for card in checked)
        if believed and truthful:
            taker = -1
        elif believed or truthful:
            taker = caller  # believed a lie, or disbelieved the truth
        else:
            taker = placer  # disbelieved a lie: the liar takes the pile
        pile_size = sum(len(cards) for _, cards in self.pile)
        if taker < 0:
            last = len(self.pile) - 1
            self.discard.extend(
                (owner, cards, index == last) for index, (owner, cards) in enumerate(self.pile)
            )
        else:
            hand = self.hands[taker]
            every: list[int] = []
            for _, cards in self.pile:
                every.extend(cards)
                for card in cards:
                    hand[card] += 1
            self.counts[taker] += pile_size
            self.taken[taker] = (*self.taken[taker], tuple(sorted(every)))
        self.checks = (*self.checks, Check(caller, believed, placer, kind, checked, taker, pile_size))
        self.pile = []
        self.claims = ()
        self.pile_kind = -1
        # Everyone without cards leaves now, sharing the next finishing place.
        place = 1 + sum(1 for other in self.places if other)
        for seat in range(self.num_seats):
            if not self.places[seat] and not self.counts[seat]:
                self.places[seat] = place
        remaining = [seat for seat in range(self.num_seats) if not self.places[seat]]
        if len(remaining) <= 1:
            self.over = True
            if remaining:
                self.loser = remaining[0]
                self.places[self.loser] = self.num_seats
            return
        if taker == caller:
            self.turn = self._next_in(caller)  # the player left of the caller starts
        else:
            self.turn = caller if not self.places[caller] else self._next_in(caller)

    def observation(self, seat: int) -> BelieveObservation:
        return BelieveObservation(
            seat=seat,
            to_act=-1 if self.over else self.turn,
            dealer=self.dealer,
            hand=tuple(self.hands[seat]),
            hand_counts=tuple(self.counts),
            places=tuple(self.places),
            pile_open=self.pile_kind >= 0,
            pile_kind=self.pile_kind,
            claims=self.claims,
            checks=self.checks,
            taken=self.taken[seat],
            set_aside=sum(self.set_aside),
        )

    def result(self) -> GameResult:
        if not self.over:
            raise IllegalAction("the game is not over")
        if self.capped:
            # Seats that left keep their finishing order; the others follow, fewer cards first.
            keys = [
                (1, -self.places[seat]) if self.places[seat] else (0, -self.counts[seat])
                for seat in range(self.num_seats)
            ]
        else:
            keys = [(1, -self.places[seat]) for seat in range(self.num_seats)]
        ranks = ranks_from_keys(keys)
        detail = {
            "dealer": self.dealer,
            "loser": self.loser,
            "capped": self.capped,
            "checks": len(self.checks),
            "cards_held": list(self.counts),
        }
        return GameResult(ranks=ranks, scores=seats_below(ranks), detail=detail)

    def reveal(self) -> Mapping[str, Any]:
        return {
            "hands": [_cards(hand) for hand in self.hands],
            "pile": [{"seat": seat, "cards": list(cards)} for seat, cards in self.pile],
            "pile_kind": self.pile_kind,
            "discard": [
                {"seat": seat, "cards": list(cards), "revealed": revealed}
                for seat, cards, revealed in self.discard
            ],
            "set_aside": _cards(self.set_aside),
        }

    def clone(self) -> BelieveState:
        # Tuples (claims, checks, each seat's taken piles, each placement's cards) are shared.
        flat = ("set_aside", "counts", "pile", "discard", "taken", "places")
        return self.copy_lists(flat, nested=("hands",))

    def reshuffle_hidden(self, seat: int, rng: random.Random) -> BelieveState:
        """Re-deal every card ``seat`` has not seen, keeping every count and every public fact.

        Kept: the seat's hand, its own placements (on the open pile and in the discard), every card
        revealed by a call that left the game, and each hand's, placement's and the set-aside's size.
        Re-dealt among themselves: the other seats' hands, their unrevealed placements on the open
        pile and in the discard, and the set-aside cards.
        """
        other = self.clone()
        pool: list[int] = []
        for owner in range(self.num_seats):
            if owner != seat:
                pool += _cards(self.hands[owner])
        pool += [card for owner, cards in self.pile if owner != seat for card in cards]
        pool += [
            card for owner, cards, shown in self.discard if owner != seat and not shown for card in cards
        ]
        pool += _cards(self.set_aside)
        rng.shuffle(pool)

        def draw(count: int) -> tuple[int, ...]:
            drawn = tuple(sorted(pool[len(pool) - count :]))
            del pool[len(pool) - count :]
            return drawn

        def counts_of(cards: tuple[int, ...]) -> list[int]:
            counts = [0] * self.kinds
            for card in cards:
                counts[card] += 1
            return counts

        for owner in range(self.num_seats):
            if owner != seat:
                other.hands[owner] = counts_of(draw(self.counts[owner]))
        other.pile = [(owner, cards if owner == seat else draw(len(cards))) for owner, cards in self.pile]
        other.discard = [
            (owner, cards if owner == seat or shown else draw(len(cards)), shown)
            for owner, cards, shown in self.discard
        ]
        other.set_aside = counts_of(draw(sum(self.set_aside)))
        assert not pool
        return other


class BelieveGame(Game[BelieveConfig, BelieveAction, BelieveObservation]):
    name = "believe"
    version = 2
    title = "Believe / Don't believe"
    min_seats = 2
    max_seats = 8
    config_type = BelieveConfig
    action_types = (Place, Believe, Disbelieve)
    lists_all_actions = False
    rules_path = "arena/games/believe/RULES.md"
    private_fields = frozenset({"seat", "hand", "taken"})
    listed = 2
    builtin_bots = {"random": "bots:RandomBot", "honest": "bots:HonestFirstBot", "caller": "bots:CallerBot"}

    def scores_for(self, ranks: Sequence[int], detail: Mapping[str, Any]) -> tuple[float, ...]:
        """Each seat scores the number of seats ranked strictly below it."""
        return seats_below(ranks)

    def unlisted_error(self, observation: BelieveObservation, action: BelieveAction) -> str | None:
        return why_illegal(observation, action)

    def unlisted_moves(self, observation: BelieveObservation) -> dict[str, Any] | None:
        rule = place_rule(observation)
        return {"max_cards": rule.max_cards, "kind_fixed": rule.kind_fixed}

    def next_dealer(self, result: GameResult) -> int:
        """The loser deals next time: the seat ranked last. When several share the last place (nobody
        was left holding cards, the action cap, forfeits), the first of them clockwise from this
        game's dealer, the dealer included."""
        seats, last, dealer = len(result.ranks), max(result.ranks), int(result.detail["dealer"])
        return next(
            seat for seat in ((dealer + step) % seats for step in range(seats)) if result.ranks[seat] == last
        )

    def new_state(
        self, config: BelieveConfig, num_seats: int, rng: random.Random, dealer: int | None = None
    ) -> BelieveState:
        """A game dealt by ``dealer`` (the previous game's loser); for a match's first game
        (``None``), a dealer drawn from ``rng`` after the shuffle."""
        self.check_seats(num_seats, dealer)
        if not 1 <= config.kinds <= len(KIND_NAMES):
            raise BadConfig(f"believe has 1..{len(KIND_NAMES)} kinds, not {config.kinds}")
        if config.copies < 1 or config.action_cap < 1:
            raise BadConfig("copies and action_cap must be at least 1")
        if config.kinds * config.copies < num_seats:
            raise BadConfig(
                f"{config.kinds} x {config.copies} cards cannot give each of {num_seats} players a card"
            )
        deck = [kind for kind in range(config.kinds) for _ in range(config.copies)]
        rng.shuffle(deck)
        return BelieveState(config, num_seats, deck, rng.randrange(num_seats) if dealer is None else dealer)


# --- helpers for bots: everything from the observation alone ---------------------------------


def place_rule(observation: BelieveObservation) -> PlaceRule:
    """Which placements the observing seat may make now (``max_cards`` 0 when it is not its turn,
    or it holds no cards and may only call)."""
    if observation.to_act != observation.seat:
        return PlaceRule(0, observation.pile_open)
    return PlaceRule(min(MAX_PLACE, observation.hand_size), observation.pile_open)


def place_error(hand: Sequence[int], pile_kind: int, action: Place) -> str | None:
    """Why ``action`` is not a legal placement for a seat holding ``hand`` (copies per kind) when
    the open pile's kind is ``pile_kind`` (-1: no pile open); ``None`` if it is legal."""
    held = sum(hand)
    if not held:
        return "you hold no cards: believe or disbelieve"
    most = min(MAX_PLACE, held)
    cards, claim, kinds = action.cards, action.claim, len(hand)
    if not isinstance(cards, tuple) or not 1 <= len(cards) <= most:
        return f"place 1..{most} cards (as a tuple of kind numbers)"
    if any(type(card) is not int or not 0 <= card < kinds for card in cards):
        return f"cards are kind numbers 0..{kinds - 1}"
    for kind in set(cards):
        if cards.count(kind) > hand[kind]:
            return f"you hold {hand[kind]} {kind_name(kind)} card(s), not {cards.count(kind)}"
    if type(claim) is not int or not 0 <= claim < kinds:
        return f"claim a kind number 0..{kinds - 1}"
    if pile_kind >= 0 and claim != pile_kind:
        name = kind_name(pile_kind)
        return f"cards added to the open pile must be claimed as the pile's kind, {pile_kind} ({name})"
    return None


def why_illegal(observation: BelieveObservation, action: BelieveAction) -> str | None:
    """Why the observing seat may not play ``action`` now; ``None`` if it may."""
    if observation.to_act != observation.seat:
        return "it is not this seat's turn"
    if isinstance(action, Place):
        return place_error(observation.hand, observation.pile_kind, action)
    if isinstance(action, Believe | Disbelieve):
        return None if observation.pile_open else "no pile is open, there is nothing to call"
    return "not a believe action (Place, Believe or Disbelieve)"


def random_legal_action(observation: BelieveObservation, rng: random.Random) -> BelieveAction:
    """A random legal action of the observing seat, as ``BelieveState.random_action`` draws it:
    uniform among believe, disbelieve (when a pile is open) and placing (when holding cards); a
    placement is a uniform count, that many cards drawn at random from the hand, and, with no pile
    open, a uniform claim."""
    if observation.to_act != observation.seat:
        raise IllegalAction("it is not this seat's turn")
    return _random_action(observation.hand, observation.pile_kind, rng)


def _random_action(hand: Sequence[int], pile_kind: int, rng: random.Random) -> BelieveAction:
    held = sum(hand)
    calls = CALLS if pile_kind >= 0 else ()
    pick = rng.randrange(len(calls) + (1 if held else 0))
    if pick < len(calls):
        return calls[pick]
    chosen = rng.sample(_cards(hand), rng.randint(1, min(MAX_PLACE, held)))
    claim = pile_kind if pile_kind >= 0 else rng.randrange(len(hand))
    return Place(tuple(sorted(chosen)), claim)
