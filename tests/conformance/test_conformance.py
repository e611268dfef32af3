"""The engine contract of ``arena.games.base``, checked for every registered game and seat count.

Generic by design: nothing here knows a game's rules. A game gets the whole suite by being in
``all_games()``; it is played with its default configuration, by uniformly random legal
actions, from many seeds. The properties:

* playouts end within the configuration's ``action_cap`` with a well-formed ``result()``, whose
  scores follow from its ranks by the game's scoring rule (``Game.scores_for``);
* mid-game the seat to act has legal actions and every one of them is accepted; ``to_act()``
  is ``None`` exactly when the game is over;
* the same seed and actions give the same trajectory, result and ``reveal()``;
* an illegal action raises ``IllegalAction`` and changes nothing;
* ``observation(seat)`` depends on nothing hidden from that seat (``reshuffle_hidden``), a
  re-dealt state is itself a sound state, and an observation is a snapshot, not a live view;
* ``clone()`` is independent and faithful;
* a finished game names the next game's dealer (a seat ``new_state`` accepts) or none, and then
  ``new_state`` refuses a dealer;
* a recorded match replays exactly, and a tampered one does not.

Engine bugs found by the suite are listed in ``KNOWN_BUGS``: the affected tests are marked
``xfail(strict=True)`` for that game, so a fix shows up as an unexpected pass.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import math
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from arena.bots import load_bot
from arena.games.base import BadConfig, Game, GameConfig, GameError, GameResult, GameState, IllegalAction
from arena.games.registry import all_games
from arena.runner import replay
from arena.runner.inprocess import InProcessAgent
from arena.runner.match import MatchRunner

AnyGame = Game[Any, Any, Any]
AnyState = GameState[Any, Any]

PLAYOUTS_PER_GAME = 200
"""Random playouts per game for the cheaper properties, spread over its seat counts."""

KNOWN_BUGS: dict[tuple[str, str], str] = {}
"""Engine bugs this suite has found: (test name, game name) -> why the test fails."""


def cases(test: str = "") -> list[Any]:
    """One pytest param per (game, seat count), id ``<game>-<seats>``; known bugs are xfail."""
    params = []
    for game in all_games():
        reason = KNOWN_BUGS.get((test, game.name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        for seats in range(game.min_seats, game.max_seats + 1):
            params.append(pytest.param(game, seats, id=f"{game.name}-{seats}", marks=marks))
    return params


def seeds(game: AnyGame, seats: int, per_game: int = PLAYOUTS_PER_GAME) -> range:
    """``per_game`` seeds spread evenly over the game's seat counts, distinct per seat count."""
    per_count = math.ceil(per_game / (game.max_seats - game.min_seats + 1))
    return range(seats * 10_000, seats * 10_000 + per_count)


class Playout:
    """A game played by uniformly random legal actions, drawn from a chooser separate from the
    game's random source ``rng``."""

    def __init__(self, game: AnyGame, seats: int, seed: int, config: GameConfig | None = None) -> None:
        self.game, self.seats, self.seed = game, seats, seed
        self.config = config if config is not None else game.config_type()
        self.rng = random.Random(seed)
        self.chooser = random.Random(f"chooser-{seed}")
        self.state: AnyState = game.new_state(self.config, seats, self.rng)
        self.actions: list[Any] = []

    def steps(self) -> Iterator[AnyState]:
        """The state before each decision. Unless the loop body plays the decision itself
        (``advance``), a random legal action is played when the loop resumes."""
        while self.state.to_act() is not None:
            played = len(self.actions)
            yield self.state
            if len(self.actions) == played:
                self.advance()

    def advance(self, action: Any = None) -> Any:
        if action is None:
            action = self.state.random_action(self.chooser)
        self.state.apply(action, self.rng)
        self.actions.append(action)
        assert len(self.actions) <= self.config.action_cap, (
            f"seed {self.seed}: still going after action_cap={self.config.action_cap} actions"
        )
        return action

    def finish(self) -> AnyState:
        for _ in self.steps():
            pass
        return self.state


def snapshot(state: AnyState) -> tuple[Any, ...]:
    """Everything observable about a state: to_act, every seat's observation, the legal actions
    and the reveal (as JSON text). Observations are held as they are: that they are snapshots,
    not live views, is ``test_observations_are_snapshots``'s job."""
    return (
        state.to_act(),
        tuple(state.observation(seat) for seat in range(state.num_seats)),
        tuple(state.legal_actions()),
        json.dumps(state.reveal(), sort_keys=True),
    )


def copy_rng(rng: random.Random) -> random.Random:
    other = random.Random()
    other.setstate(rng.getstate())
    return other


def check_result(game: AnyGame, result: GameResult, seats: int) -> None:
    """One competition rank per seat (0 = best, ties share, the next place skips) and one score,
    the one the game's scoring rule gives the rank (the runner's forfeits apply the same rule)."""
    assert isinstance(result, GameResult)
    ranks = list(result.ranks)
    assert len(ranks) == seats, f"{len(ranks)} ranks for {seats} seats: {result}"
    assert all(type(rank) is int for rank in ranks), result
    assert min(ranks) == 0, f"nobody ranks first: {result}"
    for rank in ranks:
        assert rank == sum(1 for other in ranks if other < rank), f"not competition ranks: {ranks}"
    assert len(result.scores) == seats, f"{len(result.scores)} scores for {seats} seats: {result}"
    assert all(isinstance(score, int | float) and not isinstance(score, bool) for score in result.scores)
    assert all(math.isfinite(score) for score in result.scores), result
    assert result.scores == game.scores_for(result.ranks, result.detail), f"scores off the rule: {result}"
    restored = GameResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert (restored.ranks, restored.scores) == (result.ranks, result.scores)


def is_legal(game: AnyGame, state: AnyState, action: Any, legal: list[Any]) -> bool:
    """Listed, or, in a game that does not list all its actions, accepted by the rules."""
    if action in legal:
        return True
    if game.lists_all_actions:
        return False
    try:
        state.clone().apply(action, random.Random(0))
    except IllegalAction:
        return False
    return True


def check_decision_point(game: AnyGame, state: AnyState, seats: int, chooser: random.Random) -> list[Any]:
    """The seat to act is a seat and has legal actions, each listed once, in a stable order; in a
    game that does not list all its actions, ``random_action`` finds one the rules accept."""
    seat = state.to_act()
    assert seat is not None and not state.is_terminal()
    assert isinstance(seat, int) and 0 <= seat < seats, f"to_act() = {seat!r} with {seats} seats"
    legal = state.legal_actions()
    if game.lists_all_actions:
        assert legal, f"seat {seat} is to act but has no legal action"
    else:
        drawn = state.random_action(chooser)
        assert is_legal(game, state, drawn, legal), f"random_action drew {drawn!r}, which the rules refuse"
    assert state.legal_actions() == legal, "legal_actions() is not stable"
    assert len(set(legal)) == len(legal), f"an action is listed twice: {legal}"
    return legal


def action_pool(game: AnyGame, seats: int) -> list[Any]:
    """Every action legal somewhere in a few playouts: candidates for illegal actions elsewhere."""
    pool: dict[Any, None] = {}
    sampler = random.Random(5)
    for seed in range(20):
        for state in Playout(game, seats, -1 - seed).steps():
            pool.update(dict.fromkeys(state.legal_actions()))
            if not game.lists_all_actions:
                pool.update(dict.fromkeys(state.random_action(sampler) for _ in range(2)))
    return list(pool)


# --- playouts end, results are well formed -------------------------------------------------


@pytest.mark.parametrize(("game", "seats"), cases())
def test_random_playouts_end_with_a_well_formed_result(game: AnyGame, seats: int) -> None:
    for seed in seeds(game, seats):
        playout = Playout(game, seats, seed)
        assert playout.state.num_seats == seats
        state = playout.finish()
        assert 0 < len(playout.actions) <= playout.config.action_cap
        assert state.to_act() is None and state.is_terminal()
        check_result(game, state.result(), seats)
        assert state.result() == state.result(), "result() is not stable"
        json.dumps(state.reveal())  # replays record the final reveal as JSON


@pytest.mark.parametrize(("game", "seats"), cases())
def test_the_action_cap_ends_the_game(game: AnyGame, seats: int) -> None:
    capped = 0
    for cap in (1, 2, 5, 12):
        config = dataclasses.replace(game.config_type(), action_cap=cap)
        for seed in seeds(game, seats, per_game=50):
            playout = Playout(game, seats, seed, config)
            state = playout.finish()
            assert len(playout.actions) <= cap
            check_result(game, state.result(), seats)
            capped += len(playout.actions) == cap
    assert capped, "no playout ever reached a small action cap"


@pytest.mark.parametrize(("game", "seats"), cases())
def test_a_finished_game_names_a_seat_to_deal_the_next_or_none(game: AnyGame, seats: int) -> None:
    """``next_dealer`` is a seat, which ``new_state`` accepts as the next game's dealer; a game that
    names none (nothing carries over from game to game) refuses a dealer."""
    config = game.config_type()
    for seed in seeds(game, seats, per_game=20):
        dealer = game.next_dealer(Playout(game, seats, seed).finish().result())
        if dealer is None:
            with pytest.raises(BadConfig):
                game.new_state(config, seats, random.Random(seed), 0)
        else:
            assert 0 <= dealer < seats
            game.new_state(config, seats, random.Random(seed), dealer)


# --- turns and legal actions -----------------------------------------------------------------


@pytest.mark.parametrize(("game", "seats"), cases())
def test_legal_actions_are_accepted_and_to_act_is_none_only_at_the_end(game: AnyGame, seats: int) -> None:
    pool = action_pool(game, seats)
    for seed in seeds(game, seats, per_game=100):
        playout = Playout(game, seats, seed)
        for state in playout.steps():
            legal = check_decision_point(game, state, seats, random.Random(seed))
            with pytest.raises(GameError):
                state.result()  # no result while a seat is still to act
            for number, action in enumerate(legal):
                state.clone().apply(action, random.Random(number))
        final = playout.state
        assert final.to_act() is None and final.is_terminal()
        assert final.legal_actions() == [], "a finished game still lists legal actions"
        check_result(game, final.result(), seats)
        before = snapshot(final)
        for action in pool:
            with pytest.raises(IllegalAction):
                final.apply(action, random.Random(0))
        assert snapshot(final) == before, "an action played after the end changed the state"


# --- determinism -------------------------------------------------------------------------------


def trajectory(
    game: AnyGame, seats: int, seed: int, actions: list[Any] | None
) -> tuple[list[Any], list[Any]]:
    """The snapshot before every decision, then the final snapshot, result and reveal; and the
    actions played: ``actions`` if given, random ones otherwise.

    The global ``random`` module is reseeded unpredictably at every step: an engine that draws
    from it instead of the ``rng`` it is given does not replay."""
    playout = Playout(game, seats, seed)
    steps = []
    saved = random.getstate()
    try:
        for number, state in enumerate(playout.steps()):
            steps.append(snapshot(state))
            random.seed(random.SystemRandom().random())
            try:
                playout.advance(None if actions is None else actions[number])
            except IllegalAction as error:
                pytest.fail(f"seed {seed}: replaying the same actions, decision {number} is illegal: {error}")
    finally:
        random.setstate(saved)
    final = playout.state
    steps.append((snapshot(final), final.result(), json.dumps(final.reveal(), sort_keys=True)))
    return steps, playout.actions


@pytest.mark.parametrize(("game", "seats"), cases())
def test_same_seed_and_actions_give_the_same_trajectory(game: AnyGame, seats: int) -> None:
    for seed in seeds(game, seats, per_game=50):
        first, actions = trajectory(game, seats, seed, None)
        second, replayed = trajectory(game, seats, seed, actions)
        assert replayed == actions
        assert len(second) == len(first), f"seed {seed}: the replay has another length"
        for number, (one, two) in enumerate(zip(first, second, strict=True)):
            assert one == two, f"seed {seed}: the replay diverges at step {number}"


# --- illegal actions ---------------------------------------------------------------------------


@pytest.mark.parametrize(("game", "seats"), cases())
def test_illegal_actions_raise_and_change_nothing(game: AnyGame, seats: int) -> None:
    pool = action_pool(game, seats)
    chooser = random.Random(17)
    tried = 0
    for seed in seeds(game, seats, per_game=60):
        # The playout goes on from each state that rejected actions: it must still be sound.
        for state in Playout(game, seats, seed).steps():
            legal = state.legal_actions()
            candidates = chooser.sample(pool, min(8, len(pool)))
            illegal = [action for action in candidates if not is_legal(game, state, action, legal)]
            before = snapshot(state)
            for action in illegal[:2]:
                with pytest.raises(IllegalAction):
                    state.apply(action, random.Random(0))
                assert snapshot(state) == before, f"seed {seed}: rejecting {action!r} changed the state"
                tried += 1
    assert tried > 0, "no illegal candidate was ever found"


# --- hidden information --------------------------------------------------------------------


def seat_observation(state: AnyState, seat: int) -> Any:
    return state.observation(seat)


def check_hidden_from_every_seat(
    state: AnyState,
    probe: random.Random,
    label: str,
    observe: Callable[[AnyState, int], Any] = seat_observation,
) -> bool:
    """Re-deal, twice for every seat, what it cannot see: ``observe(state, seat)`` (by default the
    seat's observation; ``tests/envs`` passes an environment's) and, for the seat to act, its legal
    actions must not change, nor the original state. Whether any re-deal changed anything at all
    (if none ever does, the check proves nothing)."""
    before = snapshot(state)
    changed = False
    for seat in range(state.num_seats):
        seen = observe(state, seat)
        for _ in range(2):
            other = state.reshuffle_hidden(seat, probe)
            assert other is not state
            assert observe(other, seat) == seen, (
                f"{label}: seat {seat}'s observation changed when only what it cannot see "
                "was re-dealt: it depends on hidden information"
            )
            if before[0] == seat:
                # The seat to act is shown its legal actions: they are part of what it knows.
                assert other.to_act() == seat
                assert tuple(other.legal_actions()) == before[2], (
                    f"{label}: seat {seat}'s legal actions depend on hidden information"
                )
            if not changed:
                changed = json.dumps(other.reveal(), sort_keys=True) != before[3] or any(
                    other.observation(o) != before[1][o] for o in range(state.num_seats) if o != seat
                )
    assert snapshot(state) == before, f"{label}: reshuffle_hidden changed the original state"
    return changed


@pytest.mark.parametrize(("game", "seats"), cases())
def test_observation_depends_on_nothing_hidden_from_the_seat(game: AnyGame, seats: int) -> None:
    probe = random.Random(23)
    changed = False
    for seed in seeds(game, seats, per_game=100):
        for state in Playout(game, seats, seed).steps():
            if probe.random() > 0.3:
                continue
            changed = check_hidden_from_every_seat(state, probe, f"seed {seed}") or changed
    assert changed, "reshuffle_hidden never re-dealt anything: the hidden-information test proves nothing"


@pytest.mark.parametrize(("game", "seats"), cases())
def test_the_public_view_is_the_same_from_every_seat(game: AnyGame, seats: int) -> None:
    """A spectator's view is the observation without its private fields: if any seat saw a public
    field differently, the field would carry that seat's secrets (or a seat-relative fact) to
    spectators."""
    fields = set(game.new_state(game.config_type(), seats, random.Random(0)).observation(0)._asdict())
    assert game.private_fields <= fields, f"private_fields names no field: {game.private_fields - fields}"
    assert fields - game.private_fields, "the public view would be empty"
    for seed in seeds(game, seats, per_game=50):
        playout = Playout(game, seats, seed)
        for state in playout.steps():  # the same state, advanced: check it before each decision
            check_public_view(game, state, seed)
        check_public_view(game, playout.state, seed)


def check_public_view(game: AnyGame, state: AnyState, seed: int) -> None:
    views = [
        {
            name: value
            for name, value in state.observation(seat)._asdict().items()
            if name not in game.private_fields
        }
        for seat in range(state.num_seats)
    ]
    differ = sorted(name for name in views[0] if any(view[name] != views[0][name] for view in views))
    assert not differ, f"seed {seed}: public fields differ between seats: {differ}"
    assert game.public_view(state) == views[0]


@pytest.mark.parametrize(("game", "seats"), cases("test_reshuffled_states_are_sound"))
def test_reshuffled_states_are_sound(game: AnyGame, seats: int) -> None:
    """A re-dealt state is a real state: every legal action is accepted, and after it re-dealing
    again still keeps each seat's observation (it would not if the re-deal left the hidden cards
    inconsistent with one another)."""
    probe = random.Random(29)
    decisions = 0
    seed = seats * 10_000
    while decisions < 4000:
        seed += 1
        for state in Playout(game, seats, seed).steps():
            decisions += 1
            redealt = state.reshuffle_hidden(probe.randrange(seats), probe)
            actions = check_decision_point(game, redealt, seats, probe)
            if not game.lists_all_actions:
                actions = [*actions, redealt.random_action(probe)]
            for number, action in enumerate(actions):
                after = redealt.clone()
                after.apply(action, random.Random(number))
                if after.to_act() is None:
                    check_result(game, after.result(), seats)
                    continue
                check_decision_point(game, after, seats, probe)
                seat = probe.randrange(seats)
                assert after.reshuffle_hidden(seat, probe).observation(seat) == after.observation(seat), (
                    f"seed {seed}: in a re-dealt state, after {action!r}, re-dealing again changes seat "
                    f"{seat}'s observation: the first re-deal left the state inconsistent"
                )


# --- observations and clones are independent -------------------------------------------------


@pytest.mark.parametrize(("game", "seats"), cases())
def test_observations_are_snapshots(game: AnyGame, seats: int) -> None:
    probe = random.Random(37)
    checked = 0
    for seed in seeds(game, seats, per_game=100):
        taken: list[tuple[Any, Any]] = []
        for state in Playout(game, seats, seed).steps():
            for observation, saved in taken:
                assert observation == saved, (
                    f"seed {seed}: an observation changed when the game went on: it is a live view"
                )
                checked += 1
            taken = []
            if probe.random() > 0.15:
                continue
            for seat in range(seats):
                observation = state.observation(seat)
                saved = copy.deepcopy(observation)
                assert saved == observation, "observations must compare by value"
                taken.append((observation, saved))
    assert checked > 0


@pytest.mark.parametrize(("game", "seats"), cases())
def test_clones_are_independent_and_faithful(game: AnyGame, seats: int) -> None:
    probe = random.Random(31)
    for seed in seeds(game, seats, per_game=50):
        playout = Playout(game, seats, seed)
        kept: list[tuple[AnyState, tuple[Any, ...]]] = []
        fresh: list[tuple[AnyState, tuple[Any, ...]]] = []
        for state in playout.steps():
            for clone, saved in fresh:
                assert snapshot(clone) == saved, f"seed {seed}: playing the original changed a clone"
            fresh = []
            if probe.random() > 0.05:
                continue
            before = snapshot(state)
            one, two = state.clone(), state.clone()
            assert one is not state and two is not one
            assert snapshot(one) == before, f"seed {seed}: a clone differs from its original"
            fresh.append((state.clone(), before))
            kept.extend(fresh)
            # Faithful: given the same chance and actions, a clone plays on exactly like another.
            rng_one, rng_two, chooser = copy_rng(playout.rng), copy_rng(playout.rng), random.Random(seed)
            while (seat := one.to_act()) is not None:
                legal = one.legal_actions()
                assert two.to_act() == seat and two.legal_actions() == legal, (
                    f"seed {seed}: two clones play differently"
                )
                action = one.random_action(chooser)
                one.apply(action, rng_one)
                two.apply(action, rng_two)
            assert snapshot(two) == snapshot(one), f"seed {seed}: two clones end differently"
            assert two.result() == one.result()
            # Independent: playing clones to the end left the original as it was.
            assert snapshot(state) == before, f"seed {seed}: playing a clone changed the original"
        for clone, saved in kept:
            assert snapshot(clone) == saved, f"seed {seed}: playing the original changed a clone"


# --- recorded matches replay exactly ---------------------------------------------------------


def recorded_match(game: AnyGame, seats: int) -> dict[str, Any]:
    """A 3-game match of built-in random bots (seed 11, bot seeds 0..), as replay JSON after a JSON
    round trip."""
    agents = [InProcessAgent(load_bot(game.name, "builtin:random")) for _ in range(seats)]
    runner = MatchRunner(game, game.config_type(), agents, games=3, seed=11, bot_seeds=range(seats))
    record = asyncio.run(runner.run())
    data: dict[str, Any] = json.loads(json.dumps(replay.to_json(record)))
    return data


def decisions_of(data: dict[str, Any]) -> list[list[list[Any]]]:
    return [[[seat, action] for seat, action, _ms in record["actions"]] for record in data["games"]]


@pytest.mark.parametrize(("game", "seats"), cases())
def test_a_recorded_match_replays_exactly(game: AnyGame, seats: int) -> None:
    data = recorded_match(game, seats)
    assert len(data["games"]) == 3
    assert all(record["actions"] and not record["faults"] for record in data["games"])
    assert replay.verify(data) == []
    assert decisions_of(recorded_match(game, seats)) == decisions_of(data), (
        "the same match seed and bot seeds played differently"
    )


@pytest.mark.parametrize(("game", "seats"), cases())
def test_a_tampered_replay_fails_verification(game: AnyGame, seats: int) -> None:
    data = recorded_match(game, seats)
    assert replay.verify(data) == []
    pool = action_pool(game, seats)
    for index, record in enumerate(data["games"]):
        # A well-formed action of the game, legal elsewhere, in place of the middle decision.
        number = len(record["actions"]) // 2
        steps = replay.play_through(data, index)
        state = next(steps)
        for _ in range(number):
            state = next(steps)
        legal = state.legal_actions()
        substitute = next(action for action in pool if not is_legal(game, state, action, legal))
        tampered = copy.deepcopy(data)
        tampered["games"][index]["actions"][number][1] = replay.action_to_json(substitute)
        problems = replay.verify(tampered)
        assert any(problem.startswith(f"game {index}, decision {number}") for problem in problems), (
            f"game {index}: decision {number} changed to {substitute!r} went unnoticed: {problems}"
        )
        # A game cut short.
        tampered = copy.deepcopy(data)
        tampered["games"][index]["actions"].pop()
        assert any(problem.startswith(f"game {index}") for problem in replay.verify(tampered)), (
            f"game {index}: a missing last action went unnoticed"
        )
        # A game seed that does not derive from the match seed.
        tampered = copy.deepcopy(data)
        tampered["games"][index]["seed"] += 1
        assert any(problem.startswith(f"game {index}") for problem in replay.verify(tampered)), (
            f"game {index}: a changed game seed went unnoticed"
        )
    # Another match seed: no game's seed derives from it.
    tampered = copy.deepcopy(data)
    tampered["seed"] += 1
    problems = replay.verify(tampered)
    for index in range(len(data["games"])):
        assert any(problem.startswith(f"game {index}") for problem in problems), problems
