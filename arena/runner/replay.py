"""Replay records: a match as JSON, and exact re-execution of it.

A replay is format ``card-arena.replay`` version 2 (``to_json``; version 1 is still read). ``load``
checks a file before anything is read from it or played (``MAX_REPLAY_BYTES``, ``MAX_NESTING``, the
game's config bounds), so a crafted file ends in one ``ReplayError`` or ``BadConfig``; ``verify``
re-executes every game and compares each seat to act, the result and the final state. A worker
writes each game to a ``ReplaySpool`` as it ends and reads the bytes back in order (``chunks``);
``header`` and ``game_to_json`` give the live replay's lines.

The format field by field, and why: docs/replays.md.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
import tempfile
import typing
from collections.abc import Iterator, Mapping
from enum import Enum
from pathlib import Path
from typing import Any

from arena.games.base import BadConfig, Game, GameResult, GameState, IllegalAction, check_config_bounds
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
from arena.runner.terms import FaultPolicy, Limits

SCHEMA = "card-arena.replay"
SCHEMA_VERSION = 2
SEED_BITS_BY_VERSION = {1: LEGACY_SEED_BITS, 2: SEED_BITS}
MAX_REPLAY_BYTES = 128 * 2**20
"""The largest replay file ``load`` reads: every match the web's users may ask for fits (at most
``arena.tournament.limits.MAX_MATCH_DECISIONS``, a million decisions of 50 to 70 bytes), and reading
one takes about 14 times its size in memory (750 MB for a 54 MB kozel match of a million decisions)."""
BYTES_PER_CONTAINER = 8
"""A replay of over a MiB holds at most one list or object per this many bytes (the played ones hold
one per 16 to 21): a file of ``[],[],...`` would take 24 times its size in memory."""
MAX_NESTING = 16
"""Lists and objects within one another in a replay's free-form parts (a result's detail, a final
state): the arena writes at most 4."""


SPOOL_READ_BYTES = 2**20
"""How much of a spooled game ``ReplaySpool.chunks`` reads at a time."""


class ReplayError(Exception):
    """A replay file that cannot be read; the message says what is wrong."""


class ReplayTooLarge(Exception):
    """A match whose replay would pass its spool's cap; the message names the cap."""


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
        values[spec.name] = _field_value(hints[spec.name], data[spec.name], spec.name)
    return action_type(**values)


def _field_value(hint: Any, value: Any, name: str) -> Any:
    """An action field's value from JSON as its type ``hint`` (an enum, a scalar, or a tuple of
    scalars); ``ReplayError`` if it is not one."""
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(value)
        except (ValueError, TypeError):
            raise ReplayError(f"action field {name!r}: {value!r} is not a {hint.__name__}") from None
    if typing.get_origin(hint) is tuple:
        item = typing.get_args(hint)[0]
        if isinstance(value, list) and all(_is_a(item, element) for element in value):
            return tuple(value)
    elif _is_a(hint, value):
        return value
    raise ReplayError(f"action field {name!r}: {value!r} is not a {hint}")


def _is_a(kind: type | tuple[type, ...], value: Any) -> bool:
    """Whether ``value`` is of ``kind`` as JSON reads it: ``true`` is no number."""
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return isinstance(value, kinds) and (bool in kinds or not isinstance(value, bool))


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
    if game.shed:
        raise ValueError(f"game {game.index} was streamed out: its actions are in the match's spool")
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


class ReplaySpool:
    """A match's replay, written game by game to a temporary file as each game ends (a
    ``records.GameSink``), and read back as the replay's bytes in order of the games' indices
    (``chunks``), so that neither the games' records nor the whole JSON stay in memory.

    It holds at most ``max_bytes`` of games, with their commas: ``add`` raises ``ReplayTooLarge``
    for a game that would pass that (and writes none of it)."""

    def __init__(self, max_bytes: int = MAX_REPLAY_BYTES, folder: Path | None = None) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        """Bytes of games written, with one comma between each two."""
        self._file = tempfile.TemporaryFile(dir=folder, prefix="replay-spool-")  # noqa: SIM115 (closed by close)
        self._spans: dict[int, tuple[int, int]] = {}
        """Each game's offset and length in the file, by game index."""

    def add(self, record: MatchRecord, game: GameRecord) -> None:
        """Write a finished game's JSON (``game_to_json``) to the spool's end."""
        text = json.dumps(game_to_json(game), separators=(",", ":")).encode()
        size = self.size + len(text) + (1 if self._spans else 0)
        if size > self.max_bytes:
            raise ReplayTooLarge(
                f"the replay would pass its cap of {self.max_bytes:,} bytes "
                f"at game {game.index} ({size:,} bytes of games)"
            )
        offset = self._file.seek(0, 2)
        self._file.write(text)
        self._spans[game.index] = (offset, len(text))
        self.size = size

    def chunks(self, record: MatchRecord) -> Iterator[bytes]:
        """The replay's bytes, piece by piece: the header (as the record has it now: its duration is
        known once the match ends), then every spooled game in order of its index."""
        head = json.dumps(header(record), separators=(",", ":"))
        yield head[:-1].encode() + b',"games":['
        self._file.flush()
        for number, index in enumerate(sorted(self._spans)):
            if number:
                yield b","
            offset, left = self._spans[index]
            self._file.seek(offset)
            while left > 0:
                piece = self._file.read(min(left, SPOOL_READ_BYTES))
                if not piece:
                    raise OSError(f"the replay spool ends inside game {index}")
                left -= len(piece)
                yield piece
        yield b"]}"

    def close(self) -> None:
        """Remove the spool's file (it is removed too when the process ends)."""
        self._file.close()

    def __enter__(self) -> ReplaySpool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


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
    """A replay file someone handed us, checked (``check``): ``ReplayError`` or ``BadConfig`` saying
    what is wrong otherwise. A file over ``MAX_REPLAY_BYTES`` is refused unread."""
    try:
        with path.open("rb") as file:
            if path.stat().st_size > MAX_REPLAY_BYTES:
                raise _too_big(str(path))
            text = file.read(MAX_REPLAY_BYTES + 1)  # a pipe or a device has no size to stat
    except OSError as error:
        raise ReplayError(f"{path}: cannot read a replay: {error}") from error
    return loads(text, str(path))


def loads(text: bytes, source: str) -> dict[str, Any]:
    """A replay from its bytes (a file's, or the store's), checked as ``load`` checks a file;
    ``source`` names it in errors."""
    if len(text) > MAX_REPLAY_BYTES:
        raise _too_big(source)
    containers = text.count(b"[") + text.count(b"{")  # strings' brackets too: an overestimate
    if len(text) > 2**20 and containers * BYTES_PER_CONTAINER > len(text):
        raise ReplayError(
            f"{source}: not a replay (more than one list or object per {BYTES_PER_CONTAINER} bytes)"
        )
    data = parse(text, source)
    check(data, source)
    return data


def _too_big(source: str) -> ReplayError:
    return ReplayError(f"{source}: over {MAX_REPLAY_BYTES // 2**20} MiB, the most a replay file may hold")


def parse(text: str | bytes, source: str) -> dict[str, Any]:
    """A replay (or a live replay's header) from its JSON; ``source`` names it in errors."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ReplayError(f"{source}: not a replay (lists or objects nested too deep)") from None
    except ValueError as error:  # not JSON, not UTF-8, or a number of over 4,300 digits
        raise ReplayError(f"{source}: cannot read a replay: {error}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ReplayError(f"{source}: not a {SCHEMA} file")
    if data.get("schema_version") not in SEED_BITS_BY_VERSION:
        raise ReplayError(
            f"{source}: schema version {data.get('schema_version')}, this arena reads "
            f"{', '.join(map(str, SEED_BITS_BY_VERSION))}"
        )
    return data


def check(data: Mapping[str, Any], source: str) -> None:
    """Raise ``ReplayError`` (or the game's ``BadConfig``) naming the first field of a parsed replay
    that ``verify``, ``describe`` or a rerun could not take: missing, of another type, out of range,
    nested deeper than ``MAX_NESTING``, or a config beyond the game's limits."""
    where = [source]

    def need(ok: bool, what: str) -> None:
        if not ok:
            raise ReplayError(f"{': '.join(where)}: {what}")

    def field(
        record: Mapping[str, Any], name: str, kind: type | tuple[type, ...], optional: bool = False
    ) -> Any:
        need(name in record or optional, f"no field {name!r}")
        value = record.get(name)
        need((value is None and optional) or _is_a(kind, value), f"{name!r} is not {_kind_name(kind)}")
        return value

    def seat_list(record: Mapping[str, Any], name: str, length: int | None = None) -> None:
        seats = field(record, name, list)
        need(all(_is_a(int, seat) and 0 <= seat < len(names) for seat in seats), f"{name!r} holds a non-seat")
        need(length is None or len(seats) == length, f"{name!r} has {len(seats)} entries, not {length}")

    for name in ("match_id", "game"):
        field(data, name, str)
    field(data, "game_version", int)
    try:
        game = _game_of(data)
    except BadConfig:  # a game or rules version this arena does not play: shown, but verify and rerun say so
        game = None
    config = field(data, "config", dict)
    seed = field(data, "seed", int)
    need(0 <= seed < 2 ** SEED_BITS_BY_VERSION[data["schema_version"]], "the seed is out of range")
    field(data, "rotate", bool)
    field(data, "duplicate", bool, optional=True)
    for name, terms in (("limits", Limits), ("policy", FaultPolicy)):
        values = field(data, name, dict)
        known = {spec.name for spec in dataclasses.fields(terms)}
        need(
            set(values) <= known
            and all(_is_a(int, value) and 0 <= value < 2**31 for value in values.values()),
            f"{name!r} holds other than {', '.join(sorted(known))}, whole numbers below 2**31",
        )
    names: list[str] = []
    for seat in field(data, "seats", list):
        need(_is_a(dict, seat), "a seat is not an object")
        names.append(field(seat, "name", str))
        field(seat, "spec", str)
    try:  # within the limits first: the engine's own checks deal a game
        check_config_bounds(config)
        if game is not None:
            game.check_seats(len(names))
            game.check_config(game.config_type.from_dict(config), len(names))
    except BadConfig as error:
        need(False, str(error))
    for position, record in enumerate(field(data, "games", list)):
        where[1:] = [f"game {position}"]
        need(_is_a(dict, record), "not an object")
        need(field(record, "index", int) >= 0, "a negative index")
        field(record, "seed", int)
        seat_list(record, "seating", len(names))
        for number, action in enumerate(field(record, "actions", list)):
            need(_is_a(list, action) and len(action) == 3, f"decision {number} is not [seat, action, ms]")
            seat, choice, ms = action
            need(_is_a(int, seat) and 0 <= seat < len(names), f"decision {number}'s seat is not a seat")
            need(
                _is_a(dict, choice) and _is_a(str, choice.get("type")),
                f"decision {number} is not an action",
            )
            need(_is_a((int, float), ms), f"decision {number}'s time is not a number")
            need(_nesting(choice) <= 2, f"decision {number}'s action is nested too deep")
        field(record, "actions_sha256", str, optional=True)
        field(record, "fallback", list)
        for fault in field(record, "faults", list):
            need(_is_a(dict, fault), "a fault is not an object")
            field(fault, "decision", int)
            field(fault, "status", str)
            field(fault, "detail", str)
        seat_list(record, "forfeited")
        need(
            all(_is_a(str, status) for status in field(record, "statuses", list)), "a status is not a string"
        )
        need(len(record["statuses"]) == len(names), "'statuses' has not one per seat")
        result = field(record, "result", dict)
        need(len(field(result, "ranks", list)) == len(names), "the result's ranks are not one per seat")
        need(
            all(_is_a(int, rank) and 0 <= rank < len(names) for rank in result["ranks"]),
            "a rank is out of range",
        )
        need(len(field(result, "scores", list)) == len(names), "the result's scores are not one per seat")
        need(all(_is_a((int, float), score) for score in result["scores"]), "a score is not a number")
        field(result, "detail", dict, optional=True)
        need(
            _nesting(result) <= MAX_NESTING and _nesting(record.get("reveal")) <= MAX_NESTING,
            f"nested deeper than {MAX_NESTING}",
        )


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {dict: "an object", list: "a list", str: "a string", int: "a whole number", bool: "true or false"}
    return " or ".join(names.get(one, "a number") for one in (kind if isinstance(kind, tuple) else (kind,)))


def _nesting(value: Any) -> int:
    """How deep lists and objects lie within one another in ``value`` (0 for a scalar), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is not None:
            deepest = max(deepest, depth)
            if depth <= MAX_NESTING:
                stack.extend((child, depth + 1) for child in children)
    return deepest


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
        try:
            dealer = carried_dealer(
                game, record["seating"], prior["seating"], GameResult.from_dict(prior["result"])
            )
        except (LookupError, TypeError, ValueError, ArithmeticError):
            raise ReplayError(f"game {index}: game {before}'s result names no dealer for it") from None
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
        try:
            problems += replay_game(data, index)[1]
        except ReplayError as error:  # the game could not be set up
            problems.append(str(error))
    return problems


def describe(data: Mapping[str, Any], games: list[int] | None = None, source: str = "the replay") -> str:
    """A readable account of a replay: every decision, fault and result; of the games numbered
    ``games`` only, if given (one it lacks raises ``ReplayError`` naming ``source``)."""
    played = len(data["games"])
    for index in games or []:
        if not 0 <= index < played:
            raise ReplayError(f"{source} has {played} game(s), numbered from 0: no game {index}")
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
