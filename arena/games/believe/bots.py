"""Reference bots for Believe / Don't believe: uniform random, an honest player, and a card counter.

The calls are in ``self.legal_actions``; placements are never listed (the game has too many), so
every bot builds its placements from its observation (``place_rule`` says how many cards, and
whether the claim is fixed to the open pile's kind).
"""

from __future__ import annotations

from math import comb

from arena.games.believe.engine import (
    BELIEVE,
    DISBELIEVE,
    BelieveAction,
    BelieveObservation,
    Place,
    place_rule,
    random_legal_action,
)
from arena.games.bot import Bot


def truthful_place(observation: BelieveObservation, kind: int) -> Place | None:
    """Place as many cards of ``kind`` as allowed, claimed truthfully; ``None`` if none is held."""
    count = min(observation.hand[kind], place_rule(observation).max_cards)
    return Place((kind,) * count, kind) if count else None


def largest_group(observation: BelieveObservation) -> int:
    """The kind this seat holds most of (the lowest such kind on a tie)."""
    return max(range(observation.kinds), key=lambda kind: (observation.hand[kind], -kind))


class RandomBot(Bot[BelieveObservation, BelieveAction]):
    """Draws uniformly among believe, disbelieve (when a pile is open) and placing; a placement is
    a random count of random cards from its hand, with a random claim when it opens a pile."""

    name = "random"

    def act(self, observation: BelieveObservation) -> BelieveAction:
        return random_legal_action(observation, self.rng)


class HonestFirstBot(Bot[BelieveObservation, BelieveAction]):
    """Never lies. Opens a pile with its largest group of one kind and adds every card of the pile's
    kind it holds; when it has none, it calls: it believes a placement of at most
    ``believe_up_to`` cards and disbelieves a larger one (big claims are the likelier lies)."""

    name = "honest"
    believe_up_to = 2

    def act(self, observation: BelieveObservation) -> BelieveAction:
        if not observation.pile_open:
            place = truthful_place(observation, largest_group(observation))
            assert place is not None  # a seat with no pile open always holds cards
            return place
        place = truthful_place(observation, observation.pile_kind)
        if place is not None:
            return place
        return BELIEVE if observation.claims[-1].size <= self.believe_up_to else DISBELIEVE


class CallerBot(Bot[BelieveObservation, BelieveAction]):
    """Honest when it places, and a card counter when it calls.

    It keeps track of every card it has seen: its hand, the cards it put on the open pile, the
    cards revealed by calls, and the piles it took. Copies of a kind that it holds, put on the
    open pile itself, or saw leave the game cannot be in the last placement: a claim of more
    cards than the copies still unaccounted for is a certain lie, which it disbelieves.

    It also remembers which cards went into another seat's hand (the revealed cards and its own
    cards of a pile that seat took), forgetting them as that seat's hand shrinks. It then
    estimates the chance that the placer held what it claims (the cards known to be in its hand,
    plus the rest of its hand drawn from the cards nobody accounts for), scaled by how often the
    placer's checked claims were true, and disbelieves when the estimate is below
    ``doubt_below``. With cards of the pile's kind in hand it adds them truthfully instead,
    unless the estimate is below ``doubt_hard``.
    """

    name = "caller"
    doubt_below = 0.5
    doubt_hard = 0.25
    honesty_prior = 0.75
    """A placer never checked is taken to tell the truth this often."""

    def __init__(self) -> None:
        super().__init__()
        self._reset()

    def _reset(self) -> None:
        self.my_pile: list[int] = []
        """Cards this bot put on the open pile."""
        self.gone: list[int] = []
        """Copies of each kind this bot saw leave the game (in believed-and-true piles)."""
        self.known: list[list[int]] = []
        """known[seat][kind]: cards this bot saw go into that seat's hand and thinks are still there."""
        self.checks_seen = 0

    def on_game_start(self, game_index: int, seat: int) -> None:
        self._reset()

    def act(self, observation: BelieveObservation) -> BelieveAction:
        self._catch_up(observation)
        if not observation.pile_open:
            self.my_pile = []
            return self._placed(truthful_place(observation, largest_group(observation)))
        chance = self.truth_chance(observation)
        if chance == 0.0:
            return DISBELIEVE
        place = truthful_place(observation, observation.pile_kind)
        if place is not None and chance >= self.doubt_hard:
            return self._placed(place)
        return BELIEVE if chance >= self.doubt_below else DISBELIEVE

    def _placed(self, place: Place | None) -> Place:
        assert place is not None
        self.my_pile.extend(place.cards)
        return place

    def _catch_up(self, observation: BelieveObservation) -> None:
        """Learn from the calls made since this bot last acted, and forget cards other seats may
        have placed since."""
        if not self.known:
            self.gone = [0] * observation.kinds
            self.known = [[0] * observation.kinds for _ in observation.hand_counts]
        me = observation.seat
        for check in observation.checks[self.checks_seen :]:
            placer_known = self.known[check.placer]
            for card in check.revealed:
                placer_known[card] = max(0, placer_known[card] - 1)
            # What this bot saw of the pile: the revealed cards and its own (revealed or not).
            seen = list(self.my_pile)
            if check.placer != me:
                seen += check.revealed
            if check.taker < 0:
                for card in seen:
                    self.gone[card] += 1
            elif check.taker != me:
                for card in seen:
                    self.known[check.taker][card] += 1
            self.my_pile = []  # only the first call after this bot placed resolves its pile
        self.checks_seen = len(observation.checks)
        last = observation.claims[-1] if observation.claims else None
        for seat, known in enumerate(self.known):
            # The last placer is judged on the hand it held before placing.
            held = observation.hand_counts[seat] + (last.size if last and last.seat == seat else 0)
            while sum(known) > held:
                # It placed some of them: the pile's kind first (an honest add), then its largest group.
                kind = observation.pile_kind
                if kind < 0 or not known[kind] or (last and last.seat == seat):
                    kind = max(range(len(known)), key=known.__getitem__)
                known[kind] -= 1

    def truth_chance(self, observation: BelieveObservation) -> float:
        """The chance that the last placement on the open pile is what it claims: the chance the
        placer held that many cards of the claimed kind (of some kind, for an opening placement,
        whose kind the placer chose) times how often the placer's checked placements were true."""
        kind, last = observation.pile_kind, observation.claims[-1]
        unaccounted = [
            observation.copies - observation.hand[other] - self.my_pile.count(other) - self.gone[other]
            for other in range(observation.kinds)
        ]
        if last.size > unaccounted[kind]:
            return 0.0
        placer_known = self.known[last.seat]
        # Cards nobody is known to hold: the rest of the placer's hand is drawn from them.
        pool = [
            max(0, unaccounted[other] - sum(known[other] for known in self.known))
            for other in range(observation.kinds)
        ]
        unknown = sum(pool)
        hand = min(max(0, observation.hand_counts[last.seat] + last.size - sum(placer_known)), unknown)
        kinds = range(observation.kinds) if len(observation.claims) == 1 else (kind,)
        missed = 1.0
        for other in kinds:
            need = last.size - placer_known[other]
            missed *= 1.0 - (1.0 if need <= 0 else _chance_to_hold(need, pool[other], unknown, hand))
        checked = [check for check in observation.checks if check.placer == last.seat]
        honesty = (sum(check.truthful for check in checked) + self.honesty_prior) / (len(checked) + 1)
        # Bayes: an honest placer makes this claim only if it could (``feasible``); a bluffer
        # makes it whatever it holds.
        feasible = 1.0 - missed
        return honesty * feasible / (honesty * feasible + 1.0 - honesty)


def _chance_to_hold(count: int, copies: int, pool: int, hand: int) -> float:
    """The chance that a hand of ``hand`` cards drawn from ``pool`` cards, ``copies`` of them of
    one kind, holds at least ``count`` of that kind (the hypergeometric tail)."""
    total = comb(pool, hand)
    if total == 0:
        return 1.0
    held = sum(
        comb(copies, have) * comb(pool - copies, hand - have) for have in range(count, min(copies, hand) + 1)
    )
    return held / total
