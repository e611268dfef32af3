"""The game engine interface every game implements.

An engine is a pure, deterministic state machine: it does no I/O, imports no transport,
storage or queue library, and owns no randomness. Chance (a shuffle, a deal, a blind pick)
is drawn from the ``random.Random`` the caller passes in, which the match runner seeds per
game, so ``(game id and version, config, seed, actions)`` replays exactly.

Hidden information leaves an engine only through ``observation(seat)``; what a spectator may see
is ``Game.public_view(state)``: the observation's fields that are the same from every seat.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Self, TypeVar

A = TypeVar("A")
Obs = TypeVar("Obs")
C = TypeVar("C", bound="GameConfig")


class GameError(Exception):
    """Base class of every error an engine raises."""


class IllegalAction(GameError):
    """An action that the rules do not allow in the current state; the message says why."""


class BadConfig(GameError):
    """A configuration or seat count the game does not support; the message says why."""


MAX_CONFIG_VALUE = 100_000
"""The size a config field may have where the config comes from someone else (a web user's
tournament, a replay file handed to ``arena replay``): every game's config fields are whole numbers
(and flags), and a deck of a billion cards would be dealt to check the config."""


def check_config_bounds(config: Mapping[str, Any]) -> None:
    """Raise ``BadConfig`` naming the first field of ``config`` over ``MAX_CONFIG_VALUE`` in size."""
    for name, value in config.items():
        if isinstance(value, int) and not -MAX_CONFIG_VALUE <= value <= MAX_CONFIG_VALUE:
            raise BadConfig(f"config field {name!r} must be at most {MAX_CONFIG_VALUE} in size, not {value}")


@dataclass(frozen=True)
class GameConfig:
    """Base of every game's configuration: a frozen dataclass of JSON-friendly fields."""

    action_cap: int = 1000

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise BadConfig(f"unknown config field(s): {', '.join(sorted(unknown))}")
        values = dict(data)
        for name, spec in cls.__dataclass_fields__.items():
            if name in values and not isinstance(values[name], type(getattr(cls(), name))):
                raise BadConfig(f"config field {name!r} must be {spec.type}, got {values[name]!r}")
        return cls(**values)


@dataclass(frozen=True)
class GameResult:
    """How a finished game ranks its seats.

    ``ranks[seat]`` is 0 for the best place; seats that share a place share a rank.
    ``scores`` follow from the ranks by the game's one scoring rule (``Game.scores_for``), after a
    normal end and after a forfeit alike, and ``detail`` holds game-specific facts (for example
    why the game ended).
    """

    ranks: tuple[int, ...]
    scores: tuple[float, ...]
    detail: Mapping[str, Any] = field(default_factory=dict)

    def winners(self) -> tuple[int, ...]:
        return tuple(seat for seat, rank in enumerate(self.ranks) if rank == 0)

    def to_dict(self) -> dict[str, Any]:
        return {"ranks": list(self.ranks), "scores": list(self.scores), "detail": dict(self.detail)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        return cls(tuple(data["ranks"]), tuple(data["scores"]), dict(data.get("detail", {})))


def ranks_from_keys(keys: Sequence[Any]) -> tuple[int, ...]:
    """Competition ranks (0 = best) from sort keys where a larger key is better; ties share."""
    order = sorted(set(keys), reverse=True)
    place = {key: sum(1 for other in keys if other > key) for key in order}
    return tuple(place[key] for key in keys)


def seats_below(ranks: Sequence[int]) -> tuple[float, ...]:
    """A scoring rule: each seat scores the number of seats ranked strictly below it."""
    return tuple(float(sum(1 for other in ranks if other > rank)) for rank in ranks)


def first_place_shares(ranks: Sequence[int], teams: Sequence[int]) -> tuple[float, ...]:
    """A scoring rule: one point, shared equally by the teams ranked first (``teams[seat]`` is the
    seat's team; each seat of such a team scores its team's share); every other seat scores 0."""
    first = {teams[seat] for seat, rank in enumerate(ranks) if rank == 0}
    return tuple(1.0 / len(first) if teams[seat] in first else 0.0 for seat in range(len(ranks)))


class GameState(ABC, Generic[A, Obs]):
    """One game in progress. Mutable: ``apply`` changes it; ``clone`` gives an independent copy."""

    num_seats: int

    @abstractmethod
    def to_act(self) -> int | None:
        """The seat that must decide now, or ``None`` once the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[A]:
        """Every action the seat to act may take, in a stable order; never empty mid-game unless
        the game does not list all its actions (``Game.lists_all_actions``)."""

    @abstractmethod
    def apply(self, action: A, rng: random.Random) -> None:
        """Play ``action`` for the seat to act.

        An illegal action raises ``IllegalAction`` saying why, and leaves the state unchanged.

        ``rng`` is the match's random source for any chance the action triggers.
        """

    def check(self, action: A) -> None:
        """Raise ``IllegalAction`` saying why unless ``action`` is legal for the seat to act; the
        state is left as it is. By default a clone's ``apply`` tells; a game that does not list all
        its actions, whose actions the runner checks here, overrides it with what ``apply`` checks.
        """
        self.clone().apply(action, random.Random(0))

    @abstractmethod
    def observation(self, seat: int) -> Obs:
        """Everything ``seat`` may know now, and nothing more."""

    @abstractmethod
    def result(self) -> GameResult:
        """The outcome; only valid once ``to_act()`` is ``None``."""

    @abstractmethod
    def reveal(self) -> Mapping[str, Any]:
        """The whole hidden state as JSON-friendly data, for game end and replays."""

    @abstractmethod
    def clone(self) -> Self:
        """An independent deep copy."""

    def copy_lists(self, flat: Iterable[str], nested: Iterable[str] = ()) -> Self:
        """A copy for ``clone`` in which the lists named in ``flat`` are new lists and those named in
        ``nested`` new lists of new lists; every other attribute is shared, so it must be immutable
        (numbers, strings, tuples, the config)."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        for name in flat:
            setattr(other, name, list(getattr(self, name)))
        for name in nested:
            setattr(other, name, [list(inner) for inner in getattr(self, name)])
        return other

    @abstractmethod
    def reshuffle_hidden(self, seat: int, rng: random.Random) -> Self:
        """A copy in which everything ``seat`` cannot see is re-dealt at random.

        The copy agrees with everything ``seat`` has observed; the conformance suite uses it
        to prove that ``observation(seat)`` depends on nothing hidden from that seat.
        """

    def is_terminal(self) -> bool:
        return self.to_act() is None

    def random_action(self, rng: random.Random) -> A:
        """A random legal action: uniform over ``legal_actions()`` (a game that does not list all
        its actions overrides this to draw from all of them)."""
        return rng.choice(self.legal_actions())


class Game(ABC, Generic[C, A, Obs]):
    """A registered game: identity, seat range, configuration type and a state factory.

    ``version`` is bumped whenever a rule change could change an outcome; the versioned id
    ``name@version`` is what replays and results record.
    """

    name: ClassVar[str]
    version: ClassVar[int]
    title: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    config_type: ClassVar[type[GameConfig]]
    action_types: ClassVar[tuple[type, ...]]
    """The frozen dataclasses that are this game's actions."""
    lists_all_actions: ClassVar[bool] = True
    """False for a game whose legal actions are too many to list (Believe's placements):
    ``legal_actions()`` then lists only the others, ``apply`` still judges every action, and
    ``random_action`` samples from all of them."""
    rules_path: ClassVar[str]
    """The game's rules page, relative to the repository root."""
    private_fields: ClassVar[frozenset[str]]
    """The observation's fields that belong to the observing seat: its own cards, and facts as only
    that seat sees them. Every other field is public, the same from every seat (the conformance
    suite checks it)."""
    listed: ClassVar[int] = 100
    """Where the game stands in lists of the games (``arena games``, the web app's), smallest first;
    games that tie are listed by name."""
    teams: ClassVar[tuple[int, ...] | None] = None
    """A team game's team label per seat (Kozel: ``(0, 1, 0, 1)``, partners opposite); ``None`` in
    a free-for-all, where every seat plays for itself. A team game is played at ``max_seats``."""
    builtin_bots: ClassVar[Mapping[str, str]]
    """The game's built-in bots: name -> ``"module:Class"``, the module named within the game's
    folder (``bots:RandomBot`` is ``arena.games.<name>.bots.RandomBot``)."""

    @property
    def game_id(self) -> str:
        return f"{self.name}@{self.version}"

    @property
    def package(self) -> str:
        """The game's folder as a package (``arena.games.edible``): its engine, bots and the
        modules each layer looks for there (``arena.games.registry``)."""
        return type(self).__module__.rpartition(".")[0]

    def team_of(self, seat: int) -> int:
        """The team a seat plays for; in a free-for-all every seat is its own team."""
        return seat if self.teams is None else self.teams[seat]

    def check_seats(self, num_seats: int, dealer: int | None = None) -> None:
        """Raise ``BadConfig`` unless ``num_seats`` seats play the game and ``dealer`` may deal it:
        ``None``, or a seat in a game that carries the deal over (one that overrides ``next_dealer``)."""
        if not self.min_seats <= num_seats <= self.max_seats:
            raise BadConfig(
                f"{self.name} is played by {self.min_seats}..{self.max_seats} seats, not {num_seats}"
            )
        if dealer is None:
            return
        if type(self).next_dealer is Game.next_dealer:
            raise BadConfig(f"{self.name} carries no deal over from one game to the next: it takes no dealer")
        if not 0 <= dealer < num_seats:
            raise BadConfig(f"the dealer must be a seat 0..{num_seats - 1}, not {dealer}")

    def check_config(self, config: C, num_seats: int) -> None:
        """Raise ``BadConfig`` unless ``config`` can be played by ``num_seats`` seats: the engine's
        own checks, run by setting up a game (before a tournament is created, say, rather than
        when its first match fails)."""
        self.new_state(config, num_seats, random.Random(0))

    @abstractmethod
    def scores_for(self, ranks: Sequence[int], detail: Mapping[str, Any]) -> tuple[float, ...]:
        """The scores that ``ranks`` earn: the game's one scoring rule, which its engine's results
        and the runner's forfeits both apply, so that ranks and scores never disagree. ``detail``
        is the result's, for a game whose rule depends on how the game ended."""

    def public_view(self, state: GameState[A, Obs]) -> dict[str, Any]:
        """What a spectator may see now: the observation's public fields."""
        fields: dict[str, Any] = state.observation(0)._asdict()  # type: ignore[attr-defined]
        return {name: value for name, value in fields.items() if name not in self.private_fields}

    def unlisted_error(self, observation: Obs, action: A) -> str | None:
        """Why the observing seat may not play ``action``, which its legal list does not hold,
        judged from what the seat sees (``None``: it may). The default refuses it; a game that
        does not list all its actions (``lists_all_actions`` false) judges it by its rules."""
        return "not among the legal actions"

    def unlisted_moves(self, observation: Obs) -> dict[str, Any] | None:
        """The rule of the legal moves that ``legal_actions`` leaves out, as JSON for a person's page
        to offer them (Believe's placements: how many cards, whether the claim is fixed); ``None``,
        the default, where the list holds every move."""
        return None

    def next_dealer(self, result: GameResult) -> int | None:
        """The seat of a finished game that deals the match's next game, in a game whose rules carry
        the deal from one game to the next (Believe: the loser deals next time); ``None``, the
        default, where every game is set up from its seed alone. The runner passes the seat its bot
        sits at in the next game to ``new_state`` as ``dealer``, and a replay derives it the same
        way from the recorded result, so a match still replays from its record."""
        return None

    @abstractmethod
    def new_state(
        self, config: C, num_seats: int, rng: random.Random, dealer: int | None = None
    ) -> GameState[A, Obs]:
        """A fresh game; ``rng`` supplies the deal. ``dealer`` is the seat that deals it, as the
        match's previous game named it (``next_dealer``); ``None`` for a match's first game (the
        seed decides) and in a game that carries no deal over (which refuses any other value:
        ``check_seats``)."""
