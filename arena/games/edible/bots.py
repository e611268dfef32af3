"""Reference bots for Edible: uniform random, and a heuristic that beats it clearly."""

from __future__ import annotations

from arena.games.bot import Bot, RandomBot
from arena.games.edible.engine import (
    PASS,
    Bid,
    Card,
    Discard,
    EdibleAction,
    EdibleObservation,
    Flip,
    Phase,
    Place,
)

__all__ = ["HeuristicBot", "RandomBot"]
"""The built-in bots ``Edible.builtin_bots`` finds here (the random one is ``arena.games.bot``'s, shared)."""


class HeuristicBot(Bot[EdibleObservation, EdibleAction]):
    """Bids what its own mat guarantees, and guards its mat with a boot at the bottom.

    A challenger's own cards are turned first, top down, so a bid no larger than the run of
    sausages on top of its own mat always succeeds. With a boot at the bottom it bids only that
    run; with an all-sausage mat it reaches for up to ``reach`` rival cards. It starts a round
    with its boot half the time among three or fewer players and always among more, so that
    rivals who bid high turn a boot.
    """

    name = "heuristic"
    boot_bottom_rate = 0.5
    target_run = 1
    reach = 2

    def act(self, observation: EdibleObservation) -> EdibleAction:
        phase = observation.phase
        if phase is Phase.PLACE:
            active = sum(view.active for view in observation.seats)
            rate = self.boot_bottom_rate if active <= 3 else 1.0
            if observation.hand_boots and (not observation.hand_sausages or self.rng.random() < rate):
                return Place(Card.BOOT)
            return Place(Card.SAUSAGE)
        safe = self._safe_run(observation)
        if Card.BOOT not in observation.my_mat:
            # An all-sausage mat is turned whole; each rival card is a sausage about 3 times in 4,
            # so up to ``reach`` rival cards still leave better-than-even odds.
            safe = min(safe + self.reach, observation.total_on_mats)
        if phase is Phase.ADD_OR_BID:
            if safe < self.target_run and observation.hand_sausages:
                return Place(Card.SAUSAGE)
            return Bid(max(safe, 1))
        if phase is Phase.AUCTION:
            return Bid(safe) if safe > observation.high_bid else PASS
        if phase is Phase.ATTEMPT:
            return self._flip(observation)
        if phase is Phase.CHOOSE_LOSS:
            return Discard(Card.BOOT) if observation.hand_boots else Discard(Card.SAUSAGE)
        return self.rng.choice(self.legal_actions)

    @staticmethod
    def _safe_run(observation: EdibleObservation) -> int:
        run = 0
        for card in reversed(observation.my_mat):
            if card is not Card.SAUSAGE:
                break
            run += 1
        return run

    def _flip(self, observation: EdibleObservation) -> EdibleAction:
        # Prefer the mats of seats that added cards (adding suggests sausages), bottom first:
        # a first card is the likeliest boot of a bluffer, so take the top card of tall mats.
        flips = [action for action in self.legal_actions if isinstance(action, Flip)]
        tallest = max(observation.seats[action.seat].mat_count for action in flips)
        best = [action for action in flips if observation.seats[action.seat].mat_count == tallest]
        return max(best, key=lambda action: action.position)
