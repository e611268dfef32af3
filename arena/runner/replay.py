"""Replay records: a match as JSON, and exact re-execution of it.

Format ``card-arena.replay`` version 2 (one JSON object per match)::

    schema, schema_version          "card-arena.replay", 2 (version 1, still read, derived 63-bit
                                    seeds where version 2 derives 128-bit ones)
    match_id, game, game_version    the match and the rules version it was played under
    config                          the game's configuration (its dataclass fields)
    seed                            the match seed; game i plays deal i (see duplicate), seeded
                                    derive_seed(seed, "game", deal)
                                    (in a game that carries the deal over, Believe, a leg's next
                                    game is dealt by the bot its previous game named: derived from
                                    that game's recorded result, see deals.carried_dealer)
    rotate                          whether seats rotate one place per game
    duplicate                       whether each deal is replayed once per seat rotation (game i
                                    then plays deal i // seats)
    limits, policy                  clocks (ms) and fault policy
    seats                           per agent: name and bot spec
    started_at, duration_s          wall-clock start (Unix time) and duration
    games[]                         per game:
        index, seed                 game index and its derived seed
        seating                     seating[seat] = agent playing that seat
        actions                     [[seat, action, ms], ...]: every decision in order, with the
                                    decision's wall time; action = {"type": name, field: value}
        actions_sha256              digest of the [seat, action] pairs, so that an edited action
                                    list is caught even where it would replay to the same end
        fallback                    indices of actions the fallback chose for a forfeited seat
        faults                      [{decision, seat, agent, status, detail}]
        forfeited, statuses         seats that forfeited; per-seat status for the game
        result                      {ranks, scores, detail}: after forfeits
        reveal                      the final hidden state

A game replays exactly from (game id and version, config, game seed, actions), and in a game that
carries the deal over from the previous game of its leg, that game's recorded seating and result:
``verify`` re-executes every game and compares each seat to act, the result and the final state.

While a match runs, its live replay (``arena.store.live``) holds the same data as lines: the object
above without ``games`` (``header``), then one line per finished game (``game_to_json``). The web app
shows spectators only each game's public view from it (``Game.public_view``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import typing
from collections.abc import Iterator, Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from arena.games.base import Game, GameResult, GameState, IllegalAction
from arena.games.registry import get_game
from arena.runner.deals import (
    LEGACY_SEED_BITS,
    SEED_BITS,
    carried_dealer,
    game_seed,
    previous_game,
    seating_for,
)
from arena.runner.match import forfeit_result
from arena.runner.records import GameRecord, MatchRecord

SCHEMA = "card-arena.replay"
SCHEMA_VERSION = 2
SEED_BITS_BY_VERSION = {1: LEGACY_SEED_BITS, 2: SEED_BITS}


class ReplayError(Exception):
    """A replay file that cannot be read; the message says what is wrong."""


def action_to_json(action: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"type": type(action).__name__}
    for spec in dataclasses.fields(action):
        value = getattr(action, spec.name)
        data[spec.name] = value.value if isinstance(value, Enum) else value
    return data


def action_from_json(game: Game[Any, Any, Any], data: Mapping[str, Any]) -> Any:
    types = {action_type.__name__: action_type for action_type in game.action_types}
    try:
        action_type = types[data["type"]]
    except (KeyError, TypeError):
        raise ReplayError(f"not an action of {game.name}: {data!r}") from None
    hints = typing.get_type_hints(action_type)
    values: dict[str, Any] = {}
    for spec in dataclasses.fields(action_type):
        if spec.name not in data:
            raise ReplayError(f"action {data!r} lacks field {spec.name!r}")
        value, hint = data[spec.name], hints[spec.name]
        if isinstance(hint, type) and issubclass(hint, Enum):
            value = hint(value)
        elif isinstance(value, list):
            value = tuple(value)
        values[spec.name] = value
    return action_type(**values)


def to_json(record: MatchRecord) -> dict[str, Any]:
    return {**header(record), "games": [game_to_json(game) for game in record.games]}


def header(record: MatchRecord) -> dict[str, Any]:
    """Everything but the games."""
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "match_id": record.match_id,
        "game": record.game.name,
        "game_version": record.game.version,
        "config": record.config.to_dict(),
        "seed": record.seed,
        "rotate": record.rotate,
        "duplicate": record.duplicate,
        "limits": dataclasses.asdict(record.limits),
        "policy": dataclasses.asdict(record.policy),
        "seats": [
            {"name": name, "spec": spec} for name, spec in zip(record.names, record.specs, strict=True)
        ],
        "started_at": record.started_at,
        "duration_s": round(record.duration_s, 3),
    }


def game_to_json(game: GameRecord) -> dict[str, Any]:
    return {
        "index": game.index,
        "seed": game.seed,
        "seating": list(game.seating),
        "actions": [
            [seat, action_to_json(action), ms]
            for (seat, action), ms in zip(game.actions, game.times_ms, strict=True)
        ],
        "actions_sha256": actions_digest([[seat, action_to_json(action)] for seat, action in game.actions]),
        "fallback": game.fallback,
        "faults": [fault.to_dict() for fault in game.faults],
        "forfeited": game.forfeited,
        "statuses": [str(status) for status in game.statuses],
        "result": game.result.to_dict() if game.result else None,
        "reveal": game.reveal,
    }


def actions_digest(pairs: list[list[Any]]) -> str:
    """SHA-256 of a game's [seat, action] pairs in canonical JSON."""
    canonical = json.dumps(pairs, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def write(record: MatchRecord, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{record.game.name}-{record.match_id}.json"
    path.write_text(json.dumps(to_json(record), separators=(",", ":")))
    return path


def load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_bytes()
    except OSError as error:
        raise ReplayError(f"{path}: cannot read a replay: {error}") from error
    return parse(text, str(path))


def parse(text: str | bytes, source: str) -> dict[str, Any]:
    """A replay (or a live replay's header) from its JSON; ``source`` names it in errors."""
    try:
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReplayError(f"{source}: cannot read a replay: {error}") from error
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ReplayError(f"{source}: not a {SCHEMA} file")
    if data.get("schema_version") not in SEED_BITS_BY_VERSION:
        raise ReplayError(
            f"{source}: schema version {data.get('schema_version')}, this arena reads "
            f"{', '.join(map(str, SEED_BITS_BY_VERSION))}"
        )
    return data


def _game_of(data: Mapping[str, Any]) -> Game[Any, Any, Any]:
    game = get_game(f"{data['game']}@{data['game_version']}")
    return game


def play_through(data: Mapping[str, Any], index: int) -> Iterator[GameState[Any, Any]]:
    """Re-execute game ``index`` of a replay step by step: yields the state before the first decision
    and after each one (the same object, advanced). Raises ``ReplayError`` at a decision that was not
    the acting seat's or is not legal."""
    game = _game_of(data)
    config = game.config_type.from_dict(data["config"])
    record = data["games"][index]
    seats = len(data["seats"])
    dealer = None
    if (before := previous_game(record["index"], seats, data.get("duplicate", False))) is not None:
        prior = next((other for other in data["games"] if other["index"] == before), None)
        if prior is None:
            raise ReplayError(f"game {index}: the game before it in its leg, {before}, is not in the replay")
        dealer = carried_dealer(
            game, record["seating"], prior["seating"], GameResult.from_dict(prior["result"])
        )
    rng = random.Random(record["seed"])
    state = game.new_state(config, seats, rng, dealer)
    yield state
    for number, (seat, action_data, _ms) in enumerate(record["actions"]):
        if state.to_act() != seat:
            raise ReplayError(
                f"game {index}, decision {number}: seat {seat} acted but {state.to_act()} was to act"
            )
        try:
            state.apply(action_from_json(game, action_data), rng)
        except (IllegalAction, ReplayError) as error:
            raise ReplayError(
                f"game {index}, decision {number}: {action_data} is not legal: {error}"
            ) from None
        yield state


def replay_game(data: Mapping[str, Any], index: int) -> tuple[GameState[Any, Any], list[str]]:
    """Re-execute game ``index`` of a replay; returns the final state and the problems found."""
    record = data["games"][index]
    problems: list[str] = []
    seats = len(data["seats"])
    bits = SEED_BITS_BY_VERSION[data["schema_version"]]
    if record["seed"] != game_seed(data["seed"], record["index"], seats, data.get("duplicate", False), bits):
        problems.append(f"game {index}: seed does not derive from the match seed")
    if tuple(record["seating"]) != seating_for(record["index"], seats, data["rotate"]):
        problems.append(f"game {index}: seating does not follow the rotation rule")
    if record.get("actions_sha256") != actions_digest([pair[:2] for pair in record["actions"]]):
        problems.append(f"game {index}: the actions differ from the ones recorded (digest mismatch)")
    steps = play_through(data, index)
    state = next(steps)  # the same object throughout, advanced by each step
    try:
        for _ in steps:
            pass
    except ReplayError as error:
        problems.append(str(error))
        return state, problems
    if not state.is_terminal():
        problems.append(f"game {index}: the actions end before the game does")
        return state, problems
    result = forfeit_result(_game_of(data), state.result(), record["forfeited"])
    if json.loads(json.dumps(result.to_dict())) != record["result"]:
        problems.append(
            f"game {index}: result {result.to_dict()} differs from the recorded {record['result']}"
        )
    if json.loads(json.dumps(state.reveal())) != record["reveal"]:
        problems.append(f"game {index}: the final state differs from the recorded one")
    return state, problems


def verify(data: Mapping[str, Any]) -> list[str]:
    """Every difference between the replay and a re-execution of it; empty if it matches."""
    problems: list[str] = []
    for index in range(len(data["games"])):
        problems += replay_game(data, index)[1]
    return problems


def describe(data: Mapping[str, Any], games: list[int] | None = None) -> str:
    """A readable account of a replay: every decision, fault and result."""
    names = [seat["name"] for seat in data["seats"]]
    lines = [
        f"{data['game']}@{data['game_version']} match {data['match_id']}, seed {data['seed']}, "
        f"{len(data['games'])} game(s), config {data['config']}",
        "agents: "
        + ", ".join(
            f"{i}={name} ({seat['spec']})"
            for i, (name, seat) in enumerate(zip(names, data["seats"], strict=True))
        ),
    ]
    for record in data["games"]:
        if games is not None and record["index"] not in games:
            continue
        seating = record["seating"]
        lines.append(f"\n== game {record['index']} (seed {record['seed']})")
        faults = {fault["decision"]: fault for fault in record["faults"]}
        fallback = set(record["fallback"])
        for number, (seat, action, ms) in enumerate(record["actions"]):
            fields = ", ".join(f"{key}={value}" for key, value in action.items() if key != "type")
            note = " [fallback]" if number in fallback else ""
            lines.append(
                f"{number:4d}  seat {seat} {names[seating[seat]]:<12} "
                f"{action['type']}({fields}){note}  {ms} ms"
            )
            if number in faults:
                fault = faults[number]
                lines.append(f"      ! {fault['status']}: {fault['detail']}")
        result = GameResult.from_dict(record["result"])
        standings = ", ".join(
            f"{names[seating[seat]]}: place {rank + 1} ({record['statuses'][seat]})"
            for seat, rank in sorted(enumerate(result.ranks), key=lambda item: item[1])
        )
        lines.append(f"result: {standings}; {dict(result.detail)}")
    return "\n".join(lines)
