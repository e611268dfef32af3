"""The games people play against bots in the browser: started, played and recorded by this process.

A person's game is one unrated match stored like any other, whose first seat is a ``HumanAgent``
(``arena.runner.human``) and whose other seats are bots in the sandbox; this process claims it, plays
it on a thread of its own under a lease and records it with the worker's ``record_result``. The
person's page follows its seat over server-sent events and answers with POSTs (``arena.web.play``).
Bounds: ``MAX_GAMES`` games a user, ``MAX_TABLES`` in this process, ``ANSWERS_PER_S`` answers a second
(``ANSWER_BURST``), ``STREAMS_PER_S`` connections of a page; a person's clock is
``ARENA_PLAY_DECISION_S`` seconds a decision (60 unless set).

In full: docs/web.md.
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from arena import loop
from arena.bots import builtin_names
from arena.games.base import BadConfig, Game
from arena.games.registry import get_game
from arena.runner import replay
from arena.runner.human import LEAVE_S, HumanAgent, SeatedRunner, Table, View
from arena.runner.match import match_bound_s
from arena.runner.terms import Limits
from arena.sandbox import BotProgram
from arena.store.blobs import pack
from arena.store.db import Store
from arena.store.live import clear
from arena.store.models import BotVersion, User
from arena.store.patience import ride_out
from arena.store.queries.bots import bot_named, validated_bot_names
from arena.store.queries.tournaments import running_of
from arena.store.repo import MatchBlobs, bot_version, create_tournament, record_result, release
from arena.store.repo.bots import end_validation
from arena.store.repo.matches import hold
from arena.tournament import limits, quota
from arena.tournament.challenges import may_use
from arena.tournament.play import (
    LEASE,
    MAX_ATTEMPTS,
    RECORD_S,
    leased,
    pack_chunks,
    program_for,
    spool_folder,
    tournament_sandbox,
    worker_name,
)
from arena.transport.process import play_match
from arena.web.views.replays import jsonable

log = logging.getLogger("arena.web.play")

KIND = quota.PLAY
"""The kind of a person's game's tournament."""
MAX_GAMES = 1
"""Games a user may play at once."""
MAX_TABLES = 8
"""Games this process plays at once, all users together."""
ANSWERS_PER_S = 10.0
ANSWER_BURST = 20
STREAMS_PER_S = 1.0
STREAM_BURST = 5
"""A seat's page connects again every 30 s (``arena.web.play.STREAM_S``), and once per reload."""
MAX_SEED = 2**63 - 1
SEAT_NOTE = "a person's seat, played in the browser (/play): not a program, never validated or scheduled"


class PlayError(Exception):
    """A request to start or answer a game that cannot be served; ``status`` is its HTTP status."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def decision_s() -> float:
    """A person's clock per decision: ``ARENA_PLAY_DECISION_S`` (default 60)."""
    text = os.environ.get("ARENA_PLAY_DECISION_S", "60")
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"ARENA_PLAY_DECISION_S must be a number of seconds, not {text!r}") from None
    if not 1 <= seconds <= 600:
        raise ValueError(f"ARENA_PLAY_DECISION_S must be 1 to 600 seconds, not {seconds:g}")
    return seconds


def opponents(session: Session, game: str, user: User) -> list[str]:
    """Who ``user`` may seat against themselves at ``game``: the built-ins, their own bots, and
    the bots whose owners opened them to others (``challenges.may_use``), each with a version that
    passed validation."""
    return [f"builtin:{name}" for name in builtin_names(game)] + validated_bot_names(
        session, game, usable_by=user.id
    )


def _opponent(session: Session, game: str, name: str, user: User) -> BotVersion:
    if name.startswith("builtin:"):
        if name.removeprefix("builtin:") not in builtin_names(game):
            raise PlayError(400, f"{game} has no built-in bot {name!r}")
        return bot_version(session, game, name, name, None)
    bot = bot_named(session, game, name)
    if bot is None or bot.owner_id is None or not may_use(user, bot):
        raise PlayError(400, f"no {game} bot {name!r} you may play against")
    validated = [version for version in bot.versions if version.validated]
    if not validated:
        raise PlayError(400, f"bot {name!r} has no version that passed validation")
    return validated[-1]


def seat_name(session: Session, game: str, user: User) -> str:
    """The name of the bot that stands for ``user``'s seat in ``game``'s records: ``human:NAME``, or
    ``human:NAME#ID`` should another user's bot have taken that name."""
    name = f"human:{user.name}"
    bot = bot_named(session, game, name)
    return name if (bot.owner_id if bot else None) in (None, user.id) else f"{name}#{user.id}"


def playing(session: Session, user: User) -> int:
    """How many games ``user`` is playing now (running in the store)."""
    return running_of(session, KIND, user.id)


@dataclass
class Rate:
    """At most ``burst`` events within any ``burst / per_s`` seconds."""

    per_s: float
    burst: int
    times: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self) -> bool:
        """Whether one more event is within the rate (it is then counted)."""
        moment = time.monotonic()
        with self.lock:
            self.times = [at for at in self.times if moment - at < self.burst / self.per_s]
            if len(self.times) >= self.burst:
                return False
            self.times.append(moment)
            return True


@dataclass
class Seating:
    """A game in play here: its match, its person and what their page shows."""

    match_id: int
    user_id: int
    game: Game[Any, Any, Any]
    names: list[str]
    table: Table
    clock_s: float
    answers: Rate = field(default_factory=lambda: Rate(ANSWERS_PER_S, ANSWER_BURST))
    streams: Rate = field(default_factory=lambda: Rate(STREAMS_PER_S, STREAM_BURST))

    def message(self, seq: int, view: View) -> dict[str, Any]:
        """What the page is sent: the seat's view (its observation, never more) as JSON."""
        turn = None
        if view.turn is not None:
            turn = {
                "number": view.turn.number,
                "legal": [replay.action_to_json(action) for action in view.turn.legal],
                "left_ms": max(0, round((view.turn.deadline - time.monotonic()) * 1000)),
                "clock_ms": round(self.clock_s * 1000),
            }
            unlisted = self.game.unlisted_moves(view.turn.observation)
            if unlisted is not None:
                turn["unlisted"] = unlisted
        return {
            "seq": seq,
            "match_id": self.match_id,
            "game": self.game.name,
            "names": self.names,
            "seat": view.seat,
            "observation": jsonable(view.observation),
            "turn": turn,
            "result": jsonable(view.result.to_dict()) if view.result is not None else None,
            "statuses": list(view.statuses),
            "note": view.note,
            "over": view.over,
        }


class Tables:
    """The games this process plays with people."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.clock_s = decision_s()  # a bad setting stops the server as it starts, not a page later
        self._lock = threading.Lock()
        self._games: dict[int, Seating] = {}

    def in_play(self, user: User) -> list[int]:
        """The match ids of the games ``user`` plays here."""
        with self._lock:
            return sorted(match_id for match_id, seating in self._games.items() if seating.user_id == user.id)

    def get(self, match_id: int, user: User) -> Seating | None:
        """The game ``match_id`` if ``user`` plays it here."""
        with self._lock:
            seating = self._games.get(match_id)
        return seating if seating is not None and seating.user_id == user.id else None

    def start(
        self, user: User, game_name: str, names: list[str], seed: int | None, config: dict[str, Any]
    ) -> int:
        """Start a game of ``game_name`` for ``user`` against the bots ``names``: its match id."""
        clock_s = self.clock_s
        try:
            game = get_game(game_name)
        except BadConfig as error:
            raise PlayError(400, str(error)) from None
        seats = len(names) + 1
        if not game.min_seats <= seats <= game.max_seats:
            raise PlayError(
                400,
                f"{game.name} is played by {game.min_seats} to {game.max_seats}: "
                f"choose {game.min_seats - 1} to {game.max_seats - 1} opponents, not {len(names)}",
            )
        if seed is not None and not 0 <= seed <= MAX_SEED:
            raise PlayError(400, f"a seed is a whole number from 0 to {MAX_SEED}, not {seed}")
        try:
            limits.check_request(names, 1, 1, seats, seed, config)
            game_config = game.config_type.from_dict(config)
            game.check_config(game_config, seats)
        except (limits.LimitError, BadConfig) as error:
            raise PlayError(400, str(error)) from None
        chosen = seed is not None
        seed = seed if seed is not None else secrets.randbits(63)
        worker = f"{worker_name()}:play"
        with self._lock:
            if len(self._games) >= MAX_TABLES:
                raise PlayError(503, f"all {MAX_TABLES} tables of this server are in play: try again soon")
            with self.store.session() as session:
                person = session.merge(user)
                if playing(session, person) >= MAX_GAMES:
                    raise PlayError(
                        429,
                        f"you are playing {MAX_GAMES} game{'s' if MAX_GAMES > 1 else ''} already, as many as "
                        "a user may at once: finish it (or leave it: its clock runs out) first"
                        + "".join(
                            f"; yours: /play/{match_id}"
                            for match_id, seating in self._games.items()  # under the lock already
                            if seating.user_id == person.id
                        ),
                    )
                bots = [_opponent(session, game.name, name, person) for name in names]
                seat = bot_version(
                    session, game.name, seat_name(session, game.name, person), "human:", person
                )
                end_validation(seat, SEAT_NOTE)  # never validated: it is never scheduled
                tournament = create_tournament(
                    session,
                    game=game.name,
                    game_version=game.version,
                    config=game_config.to_dict(),
                    kind=KIND,
                    entrants=[seat, *bots],
                    plans=[list(range(seats))],
                    seeds=[seed],
                    games_per_match=1,
                    duplicate=False,
                    seed=seed,
                    seed_chosen=chosen,
                    rated=False,
                    creator=person,
                )
                session.flush()
                match = tournament.matches[0]
                hold(session, match, worker, MAX_ATTEMPTS, LEASE)  # claimed here and now
                match_id = match.id
                player = [person.name, *[version.bot.name for version in bots]]
                programs = [program_for(session, version, game.name) for version in bots]
            table = Table(min(LEAVE_S, clock_s))
            seating = Seating(match_id, user.id, game, player, table, clock_s)
            self._games[match_id] = seating
        human = HumanAgent(f"human:{user.name}", table, Limits(decision_ms=round(clock_s * 1000), bank_ms=0))
        thread = threading.Thread(
            target=self._play,
            args=(seating, human, programs, game_config, seed, worker),
            name=f"play-{match_id}",
            daemon=True,
        )
        thread.start()
        return match_id

    def _play(
        self,
        seating: Seating,
        human: HumanAgent,
        programs: list[BotProgram],
        config: Any,
        seed: int,
        worker: str,
    ) -> None:
        match_id, table = seating.match_id, seating.table
        try:
            seats = len(programs) + 1
            bound_s = max(match_bound_s(config, seats, 1, False, limit) for limit in (Limits(), human.limits))
            with (
                leased(self.store, match_id, worker, bound_s + RECORD_S),
                replay.ReplaySpool(limits.MAX_MATCH_REPLAY_BYTES, spool_folder()) as spool,
            ):
                try:
                    record = loop.run(
                        play_match(
                            seating.game,
                            config,
                            [human, *programs],
                            tournament_sandbox(programs),
                            [human.name, *seating.names[1:]],
                            runner=SeatedRunner,
                            games=1,
                            seed=seed,
                            match_id=str(match_id),
                            limits=Limits(),
                            sink=spool,
                        )
                    )
                except Exception as error:
                    reason = f"infrastructure: {error}"
                    log.exception("play match %d", match_id)

                    def fail() -> str:
                        with self.store.session() as session:
                            return release(session, match_id, worker, reason, max_attempts=0)

                    ride_out(fail)
                    table.show(over=True, note=f"the game could not be played: {reason}")
                    return
                files = MatchBlobs(
                    replay=pack_chunks(spool.chunks(record)),
                    logs=[pack(text.encode()) for text in record.logs],
                )

                def land() -> None:
                    with self.store.session() as session:
                        record_result(session, match_id, worker, record, files)
                        clear(session, match_id, worker)

                ride_out(land)
            played = record.games[0]  # shown again: a seat put out of the match is told no result
            table.show(
                over=True, result=played.result, statuses=tuple(str(status) for status in played.statuses)
            )
        finally:
            # the page's last message (over) stays readable a moment for a page reconnecting now
            time.sleep(min(LEAVE_S, 5.0))
            with self._lock:
                self._games.pop(match_id, None)
