"""A game of a match step by step, and a finished match's replay file.

Every card shows once the match is over; while it runs, the public view.
"""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from sqlalchemy.orm import Session

from arena.games.registry import get_game
from arena.runner import replay
from arena.store.models import Match, MatchStatus
from arena.web.views.common import Forbidden, NotFound
from arena.web.views.matches import live_replay, stored, unrecorded


class Step(BaseModel):
    number: int
    """Decision number (while the match runs: number of the public change); -1 is the deal."""
    state: dict[str, Any]
    """After the step: the whole state (hands included) once the match is over; while it runs, the
    public view."""
    observation: Any = None
    """With ``seat``: what that seat saw after the step (its observation: its own hidden cards,
    nobody else's); else None."""
    public: dict[str, Any] | None = None
    """Once the match is over: the public view after the step (what a spectator saw: the auction,
    the trick, the scores), which ``state`` (the hidden cards) leaves out; while it runs, None (the
    public view is ``state``)."""
    seat: int | None = None
    bot: str | None = None
    action: dict[str, Any] | None = None
    ms: float | None = None
    fault: str | None = None
    fallback: bool = False


class ReplayView(BaseModel):
    match_id: int
    game_index: int
    games: int
    seating: list[int]
    names: list[str]
    """Bot name per seat of this game."""
    result: dict[str, Any]
    statuses: list[str]
    steps: list[Step]
    reveal: bool
    """True once the match is over: every step with the whole state (and a seat's view on request).
    False while it runs: only the public view, one step per change of it, with no actions, seats or
    timings (a step that changed nothing public, such as a molodka question, does not show), and
    the result without its details."""


def replay_view(
    session: Session, match_id: int, game_index: int, home: Path, seat: int | None = None
) -> ReplayView:
    match = session.get(Match, match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    running = match.status == MatchStatus.RUNNING
    data = live_replay(session, match) if running else None
    if running and data is None:
        raise NotFound(f"match {match_id} is running and none of its games has finished yet")
    if running and seat is not None:
        raise Forbidden(
            f"match {match_id} is running: what a seat sees (its cards) shows once the match is over; "
            "until then the replay shows only the public view"
        )
    if data is None:
        if match.status != MatchStatus.DONE or not match.replay_blob:
            raise Forbidden(f"match {match_id} is {match.status}: it has no games to replay")
        data = replay.parse(stored(session, match.replay_blob, home), f"match {match_id}'s replay")
    if not 0 <= game_index < len(data["games"]):
        raise NotFound(f"match {match_id} has games 0..{len(data['games']) - 1}, not {game_index}")
    record = data["games"][game_index]
    if seat is not None and not 0 <= seat < len(record["seating"]):
        raise NotFound(f"game {game_index} of match {match_id} has seats 0..{len(record['seating']) - 1}")
    seat_names = [data["seats"][agent]["name"] for agent in record["seating"]]
    return ReplayView(
        match_id=match.id,
        game_index=game_index,
        games=len(data["games"]),
        seating=record["seating"],
        names=seat_names,
        result={key: record["result"][key] for key in ("ranks", "scores")} if running else record["result"],
        statuses=record["statuses"],
        steps=public_steps(data, game_index) if running else full_steps(data, game_index, seat),
        reveal=not running,
    )


def replay_file(session: Session, match_id: int, home: Path | None) -> bytes:
    """A finished match's replay file, as recorded (``arena replay show`` and ``verify`` read it;
    copied under ``home``, if given); while the match runs it is secret (its actions would give away
    the hidden cards)."""
    match = session.get(Match, match_id)
    if match is None:
        raise NotFound(f"no match {match_id}")
    if match.status != MatchStatus.DONE:
        raise Forbidden(unrecorded(match, "replay"))
    if not match.replay_blob:
        raise NotFound(unrecorded(match, "replay"))
    return stored(session, match.replay_blob, home)


def file_name(match_id: int) -> str:
    """What a match's replay file is called when downloaded or saved."""
    return f"match-{match_id}-replay.json"


def full_steps(data: dict[str, Any], game_index: int, seat: int | None) -> list[Step]:
    """Every decision with the whole state after it, and with ``seat`` what that seat saw."""
    record = data["games"][game_index]
    seat_names = [data["seats"][agent]["name"] for agent in record["seating"]]
    faults = {fault["decision"]: f"{fault['status']}: {fault['detail']}" for fault in record["faults"]}
    fallback = set(record["fallback"])
    game = get_game(f"{data['game']}@{data['game_version']}")
    steps = []
    for number, state in enumerate(replay.play_through(data, game_index), -1):
        shown = json.loads(json.dumps(state.reveal()))
        seen = None if seat is None else jsonable(state.observation(seat))
        public = jsonable(game.public_view(state))
        if number < 0:
            steps.append(Step(number=-1, state=shown, observation=seen, public=public))
            continue
        actor, action, ms = record["actions"][number]
        steps.append(
            Step(
                number=number,
                seat=actor,
                bot=seat_names[actor],
                action=action,
                ms=ms,
                fault=faults.get(number),
                fallback=number in fallback,
                state=shown,
                observation=seen,
                public=public,
            )
        )
    return steps


def public_steps(data: dict[str, Any], game_index: int) -> list[Step]:
    """The game as a spectator saw it: its public view at the deal and after every change."""
    game = get_game(f"{data['game']}@{data['game_version']}")
    steps: list[Step] = []
    for state in replay.play_through(data, game_index):
        view = jsonable(game.public_view(state))
        if not steps or view != steps[-1].state:
            steps.append(Step(number=len(steps) - 1, state=view))
    return steps


def jsonable(value: Any) -> Any:
    """An engine's observation as plain JSON: named tuples and dataclasses as objects, enums by value."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: jsonable(item) for key, item in value._asdict().items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {spec.name: jsonable(getattr(value, spec.name)) for spec in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return jsonable(value.value)
    if isinstance(value, list | tuple | set | frozenset):
        return [jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): jsonable(item) for key, item in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)
