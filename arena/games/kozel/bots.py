"""Reference bots for Kozel: uniform random, and a card-counting heuristic that beats it clearly."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from arena.games.bot import Bot, RandomBot
from arena.games.kozel.engine import (
    DECK,
    DECLINE,
    POINTS,
    RANK_ORDER,
    Beat,
    Decline,
    Discard,
    KozelAction,
    KozelObservation,
    Lead,
    Molodka,
    Phase,
    beats,
    card_points,
)

__all__ = ["HeuristicBot", "RandomBot"]
"""The built-in bots ``Kozel.builtin_bots`` finds here (the random one is ``arena.games.bot``'s, shared)."""


class HeuristicBot(Bot[KozelObservation, KozelAction]):
    """Counts the cards it has seen and plays safe, cheap and for the team.

    * Lead: weighs each lead by the chance that no opponent can beat it (from the cards not yet
      seen) against its points, and keeps trumps unless they are needed.
    * Follow: never beats a partner who is winning; feeds points into a partner's trick that looks
      safe, and discards its lowest cards otherwise; against an opponent it beats with the
      cheapest valid set when the trick is worth it.
    * Molodka: declares it unless the partner is already winning the trick.
    """

    name = "heuristic"
    trump_cost = 4.0
    """What spending one trump costs, in card points, while cards are still to come."""
    trick_bonus = 2.0
    """What each card a won trick draws in is worth, in card points."""
    safe_risk = 0.35
    """Feed points into a partner's trick when the risk that an opponent beats it is below this."""

    def act(self, observation: KozelObservation) -> KozelAction:
        if observation.phase is Phase.MOLODKA:
            return self._molodka(observation)
        if observation.phase is Phase.LEAD:
            return self._lead(observation)
        return self._follow(observation)

    # -- card counting --

    @staticmethod
    def _unseen(observation: KozelObservation) -> set[str]:
        """Cards that may still be in another hand or the stock: all but ``seen_cards``."""
        gone = seen_cards(observation)
        return {card for card in DECK if card not in gone}

    @staticmethod
    def _risk(
        cards: Sequence[str], opponents: Iterable[int], observation: KozelObservation, unseen: set[str]
    ) -> float:
        """The chance that one of ``opponents`` can beat ``cards``, treating the unseen cards as
        spread at random (each card of the set needs its own beater)."""
        trump = observation.trump_card[1]
        pool = len(unseen) or 1
        beaters = [sum(1 for other in unseen if beats(other, card, trump)) for card in cards]
        safe = 1.0
        for opponent in opponents:
            share = min(1.0, observation.hand_counts[opponent] / pool)
            can_beat_all = 1.0
            for count in beaters:
                can_beat_all *= 1.0 - (1.0 - share) ** count
            safe *= 1.0 - can_beat_all
        return 1.0 - safe

    def _trump_cost(self, cards: Iterable[str], observation: KozelObservation) -> float:
        trump = observation.trump_card[1]
        spent = sum(1 for card in cards if card[1] == trump)
        return spent * (self.trump_cost if observation.stock_count else 1.0)

    # -- decisions --

    def _molodka(self, observation: KozelObservation) -> KozelAction:
        """Declare unless the partner is winning the trick (a seat without a molodka can only decline)."""
        partner = (observation.seat + 2) % 4
        wanted = Decline if observation.winning_seat == partner else Molodka
        return next((action for action in self.legal_actions if isinstance(action, wanted)), DECLINE)

    def _lead(self, observation: KozelObservation) -> KozelAction:
        unseen = self._unseen(observation)
        opponents = [
            seat
            for seat in ((observation.seat + 1) % 4, (observation.seat + 3) % 4)
            if observation.hand_counts[seat]
        ]

        def value(action: KozelAction) -> float:
            cards = action.cards if isinstance(action, Lead) else ()
            win = 1.0 - self._risk(cards, opponents, observation, unseen)
            stake = card_points(cards) + self.trick_bonus * len(cards)
            return (2.0 * win - 1.0) * stake - self._trump_cost(cards, observation)

        return max(self.legal_actions, key=value)

    def _follow(self, observation: KozelObservation) -> KozelAction:
        me, partner = observation.seat, (observation.seat + 2) % 4
        played = {play.seat for play in observation.trick}
        after = [
            seat for seat in range(4) if seat != me and seat not in played and observation.hand_counts[seat]
        ]
        opponents_after = [seat for seat in after if seat % 2 != me % 2]
        discards = [action for action in self.legal_actions if isinstance(action, Discard)]
        trump = observation.trump_card[1]
        if observation.winning_seat == partner:
            winning = next(play.cards for play in reversed(observation.trick) if play.seat == partner)
            risk = self._risk(winning, opponents_after, observation, self._unseen(observation))
            if risk < self.safe_risk:
                return max(discards, key=lambda action: total(feed_value, action.cards, trump))
            return min(discards, key=lambda action: total(keep_value, action.cards, trump))
        beat_options = [action for action in self.legal_actions if isinstance(action, Beat)]
        if beat_options:
            cheapest = min(beat_options, key=lambda action: total(beat_cost, action.cards, trump))
            table = sum(card_points(play.cards) for play in observation.trick)
            spent = sum(1 for card in cheapest.cards if card[1] == trump)
            if not spent or table >= 4 * spent or not observation.stock_count:
                return cheapest
        return min(discards, key=lambda action: total(keep_value, action.cards, trump))


def seen_cards(observation: KozelObservation) -> set[str]:
    """The cards whose place this seat knows from what it saw: its hand, its own discards and the
    face-up cards of the deal's plays that stood (a molodka's returned cards are back in hands
    unseen, so not among them)."""
    seen: set[str] = set(observation.hand) | set(observation.my_discards)
    for trick in observation.tricks:
        for play in trick.plays:
            seen.update(play.cards)
    for play in observation.trick:
        seen.update(play.cards)
    return seen


def keep_value(card: str, trump: str) -> int:
    """How much one would rather keep this card (discard the cards of the smallest value)."""
    return 3 * POINTS[card[0]] + RANK_ORDER.index(card[0]) + (20 if card[1] == trump else 0)


def feed_value(card: str, trump: str) -> int:
    """How good this card is to feed into a partner's trick: points, but not trumps."""
    return POINTS[card[0]] - (15 if card[1] == trump else 0)


def beat_cost(card: str, trump: str) -> int:
    """What beating with this card spends: its strength, and a trump more."""
    return RANK_ORDER.index(card[0]) + (12 if card[1] == trump else 0)


def total(value: Callable[[str, str], int], cards: Iterable[str], trump: str) -> int:
    """``value`` (one of the three above) of a set of cards: the sum of its cards'."""
    return sum(value(card, trump) for card in cards)
