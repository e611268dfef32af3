"""The living ladder in the scheduler service: ladder matches whenever the executors have room.

Room left over once every tournament's waiting matches are sent goes to ``Feeder.fill``: for each
game with at least two entrants it asks the matchmaker (``arena.ladder.matchmaking``) for the most
useful match and adds it to the game's standing tournament. An unsettled ladder takes all the room;
a settled one keeps ``SETTLED_IN_PLAY`` match in play. A thread follows the landing matches into the
ladder of record (``arena.ladder.record``) while this scheduler holds the role (``active``). With
``max_matches`` the feeder adds that many matches and then none; ``finished`` says when they landed.

Why: docs/matchmaking.md.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections import Counter

from sqlalchemy.orm import Session

from arena.games.registry import all_games
from arena.ladder import matchmaking, standing
from arena.ladder.record import FOLLOW_S, Follower
from arena.ladder.shape import shape_for
from arena.store.db import Store
from arena.store.queries.matches import any_unfinished
from arena.store.queries.tournaments import unfinished_seatings
from arena.store.repo.ratings import publish_queue

log = logging.getLogger(__name__)

QUEUE_S = 2.0
"""How often the order of the next picks is published (``LadderState.queue``)."""
SETTLED_IN_PLAY = 1
"""Ladder matches a game keeps in play once every entrant is rated and linked to the main pool."""


class Feeder:
    def __init__(self, store: Store, *, max_matches: int | None = None) -> None:
        self.store = store
        self.max_matches = max_matches
        self.games = sorted({game.name for game in all_games()})
        self.followers = {game: Follower(store, game) for game in self.games}
        self.active = False
        """This scheduler holds the role: it follows the landing matches (a standby does not)."""
        self.created: list[int] = []
        self._turn = 0
        self._published = -QUEUE_S
        self._rng = random.Random()
        self._fairness = {game: matchmaking.Fairness() for game in self.games}
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._following, name="ladder-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop following, after a last look (the matches that landed last are counted)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self.active:
            self._follow_all()

    def _following(self) -> None:
        while not self._stop.wait(FOLLOW_S):
            if self.active:
                self._follow_all()

    def _follow_all(self) -> None:
        for follower in self.followers.values():
            try:
                follower.follow()
            except Exception:  # the store is out of reach, or a fault of ours: the next look tries again
                log.exception("ladder: following %s failed; trying again", follower.game)

    def refit_soon(self, game: str) -> None:
        if game in self.followers:
            self.followers[game].refit_soon()

    def fill(self, room: int) -> list[int]:
        """Up to ``room`` new ladder matches, created and pending: their ids, to be sent. Every
        ``QUEUE_S`` it also publishes each game's queue (the order of the next picks), room or not."""
        if self.max_matches is not None:
            room = min(room, self.max_matches - len(self.created))
        added: list[int] = []
        if time.monotonic() - self._published >= QUEUE_S:
            self._published = time.monotonic()
            with self.store.session() as session:
                for game in self.games:
                    self._publish(session, game)
        if room <= 0:
            return added
        with self.store.session() as session:
            playing = _in_play(session)
            for offset in range(len(self.games)):
                if len(added) >= room:
                    break
                game = self.games[(self._turn + offset) % len(self.games)]
                added += self._fill_game(session, game, room - len(added), playing.get(game, []))
        self._turn += 1
        self.created += added
        return added

    def _matchmaker(self, game: str, entrants: int) -> tuple[matchmaking.Matchmaker, matchmaking.Ratings]:
        """The matchmaker for ``game``'s ladder of ``entrants`` bots, and the ratings it reads."""
        ladder = self.followers[game].ladder
        ratings = (
            matchmaking.Ratings()
            if ladder is None
            else matchmaking.ratings_from_ladder(ladder, ladder.component)
        )
        shape = shape_for(game, entrants)
        maker = matchmaking.Matchmaker(seats=shape.seats, team_seats=shape.team_seats, games=shape.games)
        return maker, ratings

    def _publish(self, session: Session, game: str) -> None:
        """Store the order in which ``game``'s ladder bots will next be picked (its owners see it)."""
        entrants = standing.entrants(session, game)
        queue: list[int] = []
        if len(entrants) >= 2:
            maker, ratings = self._matchmaker(game, len(entrants))
            field = _field(entrants, _in_play(session).get(game, []))
            queue = list(maker.queue(field, ratings, self._fairness[game]))
        publish_queue(session, game, queue)

    def _fill_game(self, session: Session, game: str, room: int, playing: list[list[int]]) -> list[int]:
        entrants = standing.entrants(session, game)
        if len(entrants) < 2:
            return []
        maker, ratings = self._matchmaker(game, len(entrants))
        if _settled(ratings, entrants):
            room = min(room, SETTLED_IN_PLAY - len(playing))
        tournament = None
        added: list[int] = []
        for _ in range(max(room, 0)):
            pick = maker.pick(_field(entrants, playing), ratings, self._fairness[game], self._rng)
            if pick is None:
                break
            self._fairness[game] = pick.fairness
            tournament = tournament or standing.standing_tournament(session, game)
            match = standing.add_match(session, tournament, pick.entrants)
            playing.append(list(pick.entrants))
            added.append(match.id)
        return added

    def finished(self) -> bool:
        """All ``max_matches`` ladder matches were added and none is pending or running."""
        if self.max_matches is None or len(self.created) < self.max_matches:
            return False
        with self.store.session() as session:
            return not any_unfinished(session, self.created)


def _field(entrants: list[standing.Entrant], playing: list[list[int]]) -> list[matchmaking.Entrant]:
    """The entrants as the matchmaker sees them, with their ladder matches in play."""
    in_play = Counter(version for seating in playing for version in set(seating))
    return [matchmaking.Entrant(e.version_id, e.owner, in_play[e.version_id]) for e in entrants]


def _settled(ratings: matchmaking.Ratings, entrants: list[standing.Entrant]) -> bool:
    """Every entrant is rated, out of provisional, and linked to the main pool."""
    index = ratings.index
    for entrant in entrants:
        at = index.get(entrant.version_id)
        if at is None or ratings.provisional[at] or ratings.component[at] != 0:
            return False
    return True


def _in_play(session: Session) -> dict[str, list[list[int]]]:
    """Per game: the entrants of its pending and running ladder matches."""
    playing: dict[str, list[list[int]]] = {}
    for game, seating in unfinished_seatings(session, standing.KIND):
        playing.setdefault(game, []).append(list(seating))
    return playing
