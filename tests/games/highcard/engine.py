"""High card: each seat holds one hidden card and the seats bid in turn, raising or folding; the
highest card among those who did not fold wins. See RULES.md beside this file."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Self

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


@dataclass(frozen=True)
class HighCardConfig(GameConfig):
    cards: int = 20
    """The deck: cards 1..cards."""
    top_bid: int = 6
    """A bid of this much ends the bidding."""


@dataclass(frozen=True)
class Raise:
    to: int


@dataclass(frozen=True)
class Fold:
    pass


HighCardAction = Raise | Fold


class HighCardObservation(NamedTuple):
    seat: int
    card: int
    to_act: int | None
    bid: int
    folded: tuple[bool, ...]


class HighCardState(GameState[HighCardAction, HighCardObservation]):
    def __init__(self, config: HighCardConfig, hands: list[int], deck: list[int]) -> None:
        self.config = config
        self.num_seats = len(hands)
        self.hands = hands
        self.deck = deck
        self.bid = 0
        self.folded = [False] * len(hands)
        self.turn: int | None = 0
        self.actions = 0

    def to_act(self) -> int | None:
        return self.turn

    def legal_actions(self) -> list[HighCardAction]:
        if self.turn is None:
            return []
        top = min(self.bid + 2, self.config.top_bid)
        return [*(Raise(to) for to in range(self.bid + 1, top + 1)), Fold()]

    def apply(self, action: HighCardAction, rng: random.Random) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"{action!r} is not legal now (bid {self.bid}, to act {self.turn})")
        assert self.turn is not None
        if isinstance(action, Raise):
            self.bid = action.to
        else:
            self.folded[self.turn] = True
        self.actions += 1
        playing = [seat for seat in range(self.num_seats) if not self.folded[seat]]
        if len(playing) <= 1 or self.bid >= self.config.top_bid or self.actions >= self.config.action_cap:
            self.turn = None
            return
        self.turn = (
            next(seat for seat in playing if seat > self.turn) if self.turn < playing[-1] else playing[0]
        )

    def observation(self, seat: int) -> HighCardObservation:
        return HighCardObservation(seat, self.hands[seat], self.turn, self.bid, tuple(self.folded))

    def result(self) -> GameResult:
        if self.turn is not None:
            raise IllegalAction("the game is not over")
        ranks = ranks_from_keys(
            [
                (0 if folded else 1, 0 if folded else card)
                for card, folded in zip(self.hands, self.folded, strict=True)
            ]
        )
        return GameResult(ranks, seats_below(ranks), {"capped": self.actions >= self.config.action_cap})

    def reveal(self) -> Mapping[str, Any]:
        return {"hands": list(self.hands), "deck": list(self.deck)}

    def clone(self) -> Self:
        return self.copy_lists(("hands", "deck", "folded"))

    def reshuffle_hidden(self, seat: int, rng: random.Random) -> Self:
        copy = self.clone()
        unseen = [card for other, card in enumerate(self.hands) if other != seat] + self.deck
        rng.shuffle(unseen)
        copy.hands = [self.hands[other] if other == seat else unseen.pop() for other in range(self.num_seats)]
        copy.deck = unseen
        return copy


class HighCard(Game[HighCardConfig, HighCardAction, HighCardObservation]):
    name = "highcard"
    version = 1
    title = "High card"
    min_seats = 2
    max_seats = 4
    config_type = HighCardConfig
    action_types = (Raise, Fold)
    rules_path = "tests/games/highcard/RULES.md"
    private_fields = frozenset({"seat", "card"})
    builtin_bots = {"random": "bots:RandomBot"}

    def scores_for(self, ranks: Sequence[int], detail: Mapping[str, Any]) -> tuple[float, ...]:
        return seats_below(ranks)

    def new_state(
        self, config: HighCardConfig, num_seats: int, rng: random.Random, dealer: int | None = None
    ) -> HighCardState:
        self.check_seats(num_seats, dealer)
        if config.cards < num_seats or config.top_bid < 1 or config.action_cap < 1:
            raise BadConfig(
                f"{num_seats} seats need {num_seats} cards, a top bid and an action cap of 1 or more"
            )
        deck = list(range(1, config.cards + 1))
        rng.shuffle(deck)
        return HighCardState(config, [deck.pop() for _ in range(num_seats)], deck)
