"""The one place where protobuf messages and the engines' own types meet.

Nothing outside ``arena.wire`` and the transport touches a protobuf object: engines, bots and
the runner see only the engines' dataclasses. Each game registers a ``GameCodec``; decoding
anything a peer sent raises ``ProtocolError`` with a message naming what is wrong.
"""

from __future__ import annotations

import keyword
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from arena.games.base import BadConfig, GameConfig
from arena.games.registry import game_module, get_game
from arena.wire.v1 import arena_pb2 as pb

A = TypeVar("A")
Obs = TypeVar("Obs")
C = TypeVar("C", bound=GameConfig)


class ProtocolError(Exception):
    """A message that does not follow the protocol; the text says what is wrong."""


def _with_article(name: str) -> str:
    """``name`` after its indefinite article: ``an edible``, ``a kozel``."""
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


class SameNamed:
    """Scalar fields that a message and an engine's type (a config, an observation, a summary)
    name alike, each game's declared once: ``copy(target, source)`` sets each field of ``target``
    to ``source``'s, and ``of(source)`` gives the fields of ``source`` by name (keyword arguments).
    What is not a plain copy (an enum, a repeated field, an optional, a nested message) stays with
    the game's codec.

    Both are compiled from the names once, as the lines written out (``target.seat = source.seat``,
    ...): a loop of ``setattr`` costs a tenth more per observation. The names are the codecs'
    own constants, and each must be a plain identifier."""

    def __init__(self, *names: str) -> None:
        for name in names:
            if not name.isidentifier() or keyword.iskeyword(name):
                raise ValueError(f"{name!r} is not a field name")
        source = "def copy(target, source):\n"
        source += "".join(f"    target.{name} = source.{name}\n" for name in names)
        source += "def of(source):\n    return {"
        source += ", ".join(f"{name!r}: source.{name}" for name in names) + "}\n"
        compiled: dict[str, Any] = {}
        exec(source, compiled)
        self.copy: Callable[[object, object], None] = compiled["copy"]
        self.of: Callable[[object], dict[str, Any]] = compiled["of"]


_CACHE_LIMIT = 100_000

M = TypeVar("M")
T = TypeVar("T")
V = TypeVar("V")


class WireMemo(Generic[M, T]):
    """``decode`` memoised by the message's wire bytes: decoding is a function of them alone, and
    observations repeat the same history (calls, tricks) at every decision. Emptied when full."""

    def __init__(self, decode: Callable[[M], T], limit: int = _CACHE_LIMIT) -> None:
        self.decode = decode
        self.limit = limit
        self._values: dict[bytes, T] = {}

    def __call__(self, message: M) -> T:
        key = message.SerializeToString()  # type: ignore[attr-defined]
        value = self._values.get(key)
        if value is None:
            if len(self._values) >= self.limit:
                self._values.clear()
            value = self._values[key] = self.decode(message)
        return value


class IdentityMemo(Generic[V, T]):
    """``encode`` memoised by the identity of its argument: for values that recur as the very same
    object (an engine's histories, immutable tuples replaced as they grow; the legal actions a
    seat's reader decodes through a memo). Each entry holds its argument, so no other object can
    take its id while it is cached. Emptied when full."""

    def __init__(self, encode: Callable[[V], T], limit: int = 64) -> None:
        self.encode = encode
        self.limit = limit
        self._values: dict[int, tuple[V, T]] = {}

    def __call__(self, value: V) -> T:
        entry = self._values.get(id(value))
        if entry is None or entry[0] is not value:
            if len(self._values) >= self.limit:
                self._values.clear()
            entry = self._values[id(value)] = (value, self.encode(value))
        return entry[1]


class HistoryWire(Generic[V]):
    """The wire bytes of a game's history (Believe's calls, Kozel's tricks): a tuple the engine
    replaces with a longer one as it grows, each entry encoded by ``entry_wire`` (memoised by the
    codec). The last history's bytes are kept: the same tuple again (every seat's observation
    holds it) costs nothing, and one that begins with it costs only its new entries; any other
    (another game's, say) is encoded whole.

    The history and its bytes are kept as one pair, read and replaced whole: matches played in
    threads of one process (the web app's validations) share the codec, and must never pair one
    match's history with another's bytes."""

    def __init__(self, entry_wire: Callable[[V], bytes]) -> None:
        self.entry_wire = entry_wire
        self._last: tuple[tuple[V, ...], bytes] = ((), b"")

    def __call__(self, history: tuple[V, ...]) -> bytes:
        last, last_wire = self._last
        if history is last:
            return last_wire
        kept = len(last)
        if len(history) >= kept and history[:kept] == last:
            wire = last_wire + b"".join(map(self.entry_wire, history[kept:]))
        else:
            wire = b"".join(map(self.entry_wire, history))
        self._last = (history, wire)
        return wire


class HistoryReader(Generic[M, T]):
    """Decodes a history in one seat's observations (Believe's calls, Kozel's tricks) that only
    grows within its era (a game; in Kozel a deal): the entries decoded at the seat's last decision
    are kept and only the new ones decoded, as an observation repeats them all at every decision.
    Told of every new game (``forget``) and given the era, it is exact. As a guard for a reader
    that was not told, the last entry kept is checked against the message: a history that does not
    repeat it in its place (another game's, almost surely) is decoded afresh."""

    def __init__(self, decode: Callable[[M], T]) -> None:
        self.decode = decode
        self.era: object = None
        self.known: tuple[T, ...] = ()
        self._last: M | None = None
        """The message of the last entry kept, to compare with its place in the next history (a
        message comparison costs a tenth of decoding the entry again)."""

    def __call__(self, messages: Sequence[M], era: object = None) -> tuple[T, ...]:
        known, count = self.known, len(self.known)
        if era != self.era or len(messages) < count or (count and messages[count - 1] != self._last):
            known, count = (), 0  # not this history's beginning: all of it is new
        if len(messages) > count:
            known += tuple(map(self.decode, messages[count:]))
            self._last = messages[-1]
        self.era, self.known = era, known
        return known

    def forget(self) -> None:
        self.known = ()
        self._last = None


class ObservationReader(Generic[Obs]):
    """Decodes one seat's observations, game after game (``GameCodec.reader``), with the
    ``histories`` that its ``decode`` keeps from one decision to the next."""

    def __init__(self, decode: Callable[[pb.Observation], Obs], *histories: HistoryReader[Any, Any]) -> None:
        self.decode = decode
        self.histories = histories

    def new_game(self) -> None:
        """A game starts: nothing decoded so far belongs to it."""
        for history in self.histories:
            history.forget()


class GameCodec(ABC, Generic[C, A, Obs]):
    """Translates one game's configuration, observations and actions."""

    game: str
    config_type: type[C]

    def __init__(self) -> None:
        self._config_fields = SameNamed(*self.config_type.__dataclass_fields__)
        self._legal_wire: dict[A, bytes] = {}
        self._decoded: WireMemo[pb.Action, A] = WireMemo(self.decode_action)

    def legal_wire(self, actions: Sequence[A]) -> bytes:
        """A decision's legal actions as the wire bytes of a ``DecisionRequest`` that holds just
        them (for ``MergeFromString``), each action's bytes memoised: the same actions recur in
        every game, and joining bytes costs less than copying messages into the request."""
        cache = self._legal_wire
        if len(cache) > _CACHE_LIMIT:
            cache.clear()
        parts = []
        for action in actions:
            wire = cache.get(action)
            if wire is None:
                wire = cache[action] = pb.DecisionRequest(
                    legal_actions=[self.encode_action(action)]
                ).SerializeToString()
            parts.append(wire)
        return b"".join(parts)

    def decode_legal(self, messages: Iterable[pb.Action]) -> list[A]:
        """Decode a decision request's legal actions, memoised by their wire bytes."""
        return [self._decoded(message) for message in messages]

    def fill_request(self, request: pb.DecisionRequest, observation: Obs, legal: Sequence[A]) -> None:
        """Put a decision's observation and legal actions into ``request``.

        Games whose legal actions are too many to list override this to describe them instead.
        """
        self.fill_observation(request.observation, observation)
        request.MergeFromString(self.legal_wire(legal))

    def encode_config(self, config: C) -> pb.GameConfig:
        """The config message: its fields are named as the config dataclass's."""
        message = pb.GameConfig()
        body = getattr(message, self.game)
        self._config_fields.copy(body, config)
        body.SetInParent()
        return message

    def decode_config(self, message: pb.GameConfig) -> C:
        return self.config_type(**self._config_fields.of(self.game_part(message, "config")))

    def game_part(self, message: pb.GameConfig | pb.Observation, what: str) -> Any:
        """This game's part of ``message``, a config or an observation (``what``); ``ProtocolError``
        if the message holds another game's or none."""
        if message.WhichOneof("game") != self.game:
            raise ProtocolError(f"{what} is not {_with_article(self.game)} {what}")
        return getattr(message, self.game)

    def encode_observation(self, observation: Obs) -> pb.Observation:
        message = pb.Observation()
        self.fill_observation(message, observation)
        return message

    @abstractmethod
    def fill_observation(self, message: pb.Observation, observation: Obs) -> None:
        """Write ``observation`` into the empty ``message``, in place (no message is copied)."""

    @abstractmethod
    def decode_observation(self, message: pb.Observation) -> Obs: ...

    def reader(self) -> ObservationReader[Obs]:
        """A decoder of one seat's observations through a match, told when each game starts: it may
        keep what it decoded of the game so far (a history that only grows) to decode only what is
        new. This codec's ``decode_observation`` unless a game's codec does better."""
        return ObservationReader(self.decode_observation)

    def encode_action(self, action: A) -> pb.Action:
        body = self.encode_move(action)
        if body is None:
            raise TypeError(f"not {_with_article(self.game)} action: {action!r}")
        return pb.Action(**{self.game: body})

    def decode_action(self, message: pb.Action) -> A:
        game = message.WhichOneof("game")
        if game != self.game:
            raise ProtocolError(f"expected {_with_article(self.game)} action, got {game or 'nothing'}")
        body = getattr(message, self.game)
        action = self.decode_move(body, body.WhichOneof("move"))
        if action is None:
            raise ProtocolError(f"{self.game} action has no move set")
        return action

    @abstractmethod
    def encode_move(self, action: A) -> Any:
        """The game's part of the action message (``pb.<Game>Action``); ``None`` for anything that is
        not one of the game's actions."""

    @abstractmethod
    def decode_move(self, body: Any, move: str | None) -> A | None:
        """The action that ``body``, the game's part of an action message, holds as its ``move``
        (the name of the field set); ``None`` when no move is set."""


_CODECS: dict[str, GameCodec[Any, Any, Any]] = {}


def codec_for(game: str) -> GameCodec[Any, Any, Any]:
    """The codec of the game named ``game`` (e.g. ``edible``): ``CODEC`` in the game's folder
    (``arena.games.registry``; the codec modules import this one)."""
    codec = _CODECS.get(game)
    if codec is None:
        try:
            module = game_module(get_game(game), "codec")
        except BadConfig:
            module = None
        if module is None:
            raise ProtocolError(f"no codec for game {game!r}")
        codec = _CODECS[game] = module.CODEC()
    return codec
