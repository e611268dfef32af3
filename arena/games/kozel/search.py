"""A search bot for Kozel: it guesses the hidden cards many times and plays what does best on average.

``SearchBot.act`` draws determinizations (full states consistent with its own observation, the
hidden cards dealt at random from ``self.rng`` only), plays each legal action out to the end of the
deal with a greedy rollout policy (``_rollout_action``), and keeps the action with the best mean
score for its team; a single legal action, or a molodka window, is decided at once. Budget:
``rollouts`` (default 80) per decision, at least ``min_determinizations`` (default 4) each, roughly
20-50 ms a decision (``bench/kozel_strength.py``); under ``low_clock_ms`` the heuristic's rules decide.

How a decision goes, in full: docs/kozel-search.md.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

from arena.games.bot import Bot
from arena.games.kozel.bots import HeuristicBot, beat_cost, feed_value, keep_value, seen_cards, total
from arena.games.kozel.engine import (
    _BEATEN_BY,
    DECK,
    DECLINE,
    POINTS,
    Beat,
    Decline,
    Discard,
    KozelAction,
    KozelConfig,
    KozelObservation,
    KozelState,
    Lead,
    Molodka,
    Phase,
    _Placed,
    arranged_deal,
    sort_cards,
)

_ROLLOUT_CONFIG = KozelConfig(series_target=1_000, game_cap=1)
"""A determinized state plays one deal only: the deal's end ends the (private) series."""


class SearchBot(Bot[KozelObservation, KozelAction]):
    """Determinized Monte Carlo over the hidden cards, with greedy rollouts to the end of the deal."""

    name = "search"
    rollouts = 80
    """Rollouts per decision (spread over the legal actions)."""
    min_determinizations = 4
    """Determinizations per decision at least, whatever the number of legal actions."""
    point_weight = 2.0
    """Weight of the card point margin (as a share of 120) next to the defeat point margin."""
    low_clock_ms = 500
    """Below this much time left (``time_left_ms``), the heuristic's rules decide instead of the search."""

    def __init__(self) -> None:
        super().__init__()
        self.fallbacks = 0
        """Decisions where no consistent state could be built (the heuristic decided instead)."""

    def act(self, observation: KozelObservation) -> KozelAction:
        legal = self.legal_actions
        if len(legal) == 1:
            return legal[0]
        if observation.phase is Phase.MOLODKA:
            partner = (observation.seat + 2) % 4
            wanted = Decline if observation.winning_seat == partner else Molodka
            return next(action for action in legal if isinstance(action, wanted))
        if self.time_left_ms < self.low_clock_ms:
            return self._heuristic(observation)
        count = len(legal)
        determinizations = max(self.min_determinizations, math.ceil(self.rollouts / count))
        totals = [0.0] * count
        team = observation.team
        for _ in range(determinizations):
            try:
                base = determinize(observation, self.rng)
            except ValueError:
                self.fallbacks += 1
                return self._heuristic(observation)
            for index, action in enumerate(legal):
                state = base.clone()
                state.apply(action, self.rng)
                totals[index] += self._rollout(state, team)
        best = max(range(count), key=totals.__getitem__)
        return legal[best]

    def _rollout(self, state: KozelState, team: int) -> float:
        rng = self.rng
        while state.phase is not Phase.OVER:
            action = _rollout_action(state)
            if state.asking >= 0:
                state.apply(action, rng)
                continue
            # The rollout policy only builds legal card plays: skip the engine's checks.
            cards = action.cards  # type: ignore[union-attr]
            if state.phase is Phase.LEAD:
                state.lead_count = len(cards)
                state.phase = Phase.PLAY
            state._play(state.turn, cards, not isinstance(action, Discard), rng)
        summary = state.deals[-1]
        awarded, points = summary.defeat_awarded, summary.points
        return awarded[1 - team] - awarded[team] + self.point_weight * (points[team] - points[1 - team]) / 120

    def _heuristic(self, observation: KozelObservation) -> KozelAction:
        helper = HeuristicBot()
        helper.rng = self.rng
        return helper.decide(observation, self.legal_actions, self.time_left_ms)


# --- determinization -------------------------------------------------------------------------


def determinize(observation: KozelObservation, rng: random.Random) -> KozelState:
    """A full one-deal engine state consistent with ``observation``, the hidden cards drawn from
    ``rng``; the state is at the same point of the current trick. Raises ``ValueError`` if the
    observation's counts cannot be matched (never expected)."""
    me = observation.seat
    hand_counts = list(observation.hand_counts)
    seen = seen_cards(observation)  # cards whose place this seat knows; more join as they are placed
    hands: list[list[str]] = [[] for _ in range(4)]
    hands[me] = list(observation.hand)

    def place(card: str, owner: int) -> None:
        if owner != me and card not in seen and len(hands[owner]) < hand_counts[owner]:
            hands[owner].append(card)
            seen.add(card)

    trump_card = observation.trump_card
    if observation.trump_in_stock:
        seen.add(trump_card)
    elif observation.trump_holder >= 0:
        place(trump_card, observation.trump_holder)
    for play in observation.returned:
        for card in play.cards:
            place(card, play.seat)
    for trick in observation.tricks:
        for play in trick.returned:
            for card in play.cards:
                place(card, play.seat)
    pool = [card for card in DECK if card not in seen]
    rng.shuffle(pool)

    def take(count: int) -> list[str]:
        if count > len(pool):
            raise ValueError("the observation's counts exceed the hidden cards")
        cards = pool[len(pool) - count :]
        del pool[len(pool) - count :]
        return cards

    # Own discards, oldest first: those of finished tricks, then the one on the table.
    my_discards = list(observation.my_discards)
    table_mine = sum(play.discarded for play in observation.trick if play.seat == me)
    my_table_discard = my_discards[len(my_discards) - table_mine :] if table_mine else []
    my_old = my_discards[: len(my_discards) - table_mine]
    piles: list[list[str]] = [[], []]
    discards: list[list[str]] = [[] for _ in range(4)]
    for trick in observation.tricks:
        pile = piles[trick.winner % 2]
        for play in trick.plays:
            pile.extend(play.cards)
            if play.discarded:
                if play.seat == me:
                    cards = my_old[: play.discarded]
                    del my_old[: play.discarded]
                else:
                    cards = take(play.discarded)
                pile.extend(cards)
                discards[play.seat].extend(cards)
    if my_old:
        raise ValueError("own discards do not match the finished tricks")
    # The current trick's plays, with the hidden cards of other seats' discards drawn.
    placed: list[_Placed] = []
    for play in observation.trick:
        if play.discarded:
            cards = my_table_discard if play.seat == me else take(play.discarded)
            placed.append(_Placed(play.seat, sort_cards(cards), False, False))
        else:
            placed.append(_Placed(play.seat, play.cards, True, play.molodka))
    for seat in range(4):
        if seat != me:
            hands[seat].extend(take(hand_counts[seat] - len(hands[seat])))
    stock_count = observation.stock_count
    if observation.trump_in_stock:
        stock = take(stock_count - 1)
        stock.insert(observation.trump_depth, trump_card)
    else:
        stock = take(stock_count)
    if pool:
        raise ValueError("hidden cards left over after dealing every count")
    # The hands as the trick began: the current hands plus what each seat has on the table.
    start_hands = [list(hand) for hand in hands]
    for item in placed:
        start_hands[item.seat].extend(item.cards)
    state = arranged_deal(
        start_hands,
        stock,
        trump_card,
        observation.leader,
        piles=piles,
        team_tricks=observation.team_tricks,
        config=_ROLLOUT_CONFIG,
    )
    state.discards = discards
    if not placed:
        state.asking = -1  # every molodka window before this lead has been declined
        return state
    # Patch the trick in progress in.
    for item in placed:
        hand = state.hands[item.seat]
        for card in item.cards:
            hand.remove(card)
        if not item.face_up:
            state.discards[item.seat].extend(item.cards)
    state.phase = Phase.PLAY
    state.plays = placed
    state.table = observation.trick
    state.returned = observation.returned
    state.played = [False] * 4
    for item in placed:
        state.played[item.seat] = True
    face_up = [item for item in placed if item.face_up]
    state.winning_seat, state.winning_cards = face_up[-1].seat, face_up[-1].cards
    state.lead_count = len(placed[0].cards)
    if any(item.molodka for item in placed):
        state.molodka_allowed = False
    state.turn = observation.turn
    state.asking = -1
    return state


# --- the rollout policy ----------------------------------------------------------------------


def _rollout_action(state: KozelState) -> KozelAction:
    """A cheap greedy move read off the engine state: the heuristic's follow rules without card
    counting, and leads of one card (a non-trump ace, else the cheapest card to give away)."""
    if state.asking >= 0:
        if state.winning_seat == (state.asking + 2) % 4 or not state._can_declare(state.asking):
            return DECLINE
        return Molodka(tuple(state.hands[state.asking]))
    seat = state.turn
    hand = state.hands[seat]
    trump = state.trump
    if state.phase is Phase.LEAD:
        for card in reversed(hand):
            if card[0] == "A" and card[1] != trump:
                return Lead((card,))
        return Lead((min(hand, key=lambda card: keep_value(card, trump)),))
    size = state.lead_count
    if state.winning_seat == (seat + 2) % 4:
        opponents_left = any(
            state.holding[other] and not state.played[other] for other in ((seat + 1) % 4, (seat + 3) % 4)
        )
        if opponents_left:
            return _discard(hand, size, trump, lambda card: keep_value(card, trump))
        return _discard(hand, size, trump, lambda card: -feed_value(card, trump))
    winning = state.winning_cards
    cheapest: tuple[str, ...] | None = None
    if size == 1:
        beaters = [card for card in hand if card in _BEATEN_BY[trump][winning[0]]]
        if beaters:
            cheapest = (min(beaters, key=lambda card: beat_cost(card, trump)),)
    else:
        options = [action.cards for action in state.legal_actions() if isinstance(action, Beat)]
        if options:
            cheapest = min(options, key=lambda cards: total(beat_cost, cards, trump))
    if cheapest is not None:
        spent = sum(1 for card in cheapest if card[1] == trump)
        table = sum(POINTS[card[0]] for item in state.plays for card in item.cards if item.face_up)
        if not spent or table >= 4 * spent or not state.stock:
            return Beat(cheapest)
    return _discard(hand, size, trump, lambda card: keep_value(card, trump))


def _discard(hand: Sequence[str], size: int, trump: str, key: Callable[[str], int]) -> Discard:
    chosen = sorted(hand, key=key)[:size]
    return Discard(sort_cards(chosen))


__all__ = ["SearchBot", "determinize"]
