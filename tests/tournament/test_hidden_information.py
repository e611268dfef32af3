"""Hidden cards stay hidden: from seeds, from duplicate deals, from message metadata.

Each attack runs as a real tournament (SQLite store, the local process pool, bots in the real
bubblewrap sandbox over gRPC) with the attacking bot submitted like any other.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from fleet import run_local

from arena.games.kozel import Decline, Molodka
from arena.games.kozel.engine import KozelState
from arena.games.registry import get_game
from arena.ladder.shape import LADDER_GAMES, Shape
from arena.runner.replay import action_from_json, play_through
from arena.sandbox.bubblewrap import SLOT_UIDS, BubblewrapSandbox
from arena.store import blobs
from arena.store.db import Store
from arena.store.models import Match
from arena.store.repo import bot_version
from arena.submissions import store_submission
from arena.tournament.service import TournamentSpec, create
from arena.tournament.validation import validate

BOTS = Path(__file__).resolve().parents[1] / "bots"
BUILTINS = ["builtin:random", "builtin:heuristic"]
"""Edible's built-ins: with one submitted bot, its smallest ladder."""
# Run alone, after the parallel tests (deploy/test.sh): timing channels are measured.
pytestmark = [pytest.mark.bots_in_other_processes, pytest.mark.serial]


def sandboxed(log: str) -> bool:
    """Whether the bot whose log this is ran under a sandbox slot's uid."""
    uids = [int(line.split()[1]) for line in log.splitlines() if line.startswith("UID ")]
    return bool(uids) and all(uid in SLOT_UIDS for uid in uids)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("ARENA_HOME", str(tmp_path / "home"))
    yield tmp_path / "home"


def play_tournament(
    home: Path, bot: str, game: str, others: list[str], **spec: Any
) -> tuple[dict[str, Any], str]:
    """Submit ``bot`` (a file in ``bots/``), run a one-match tournament of it against ``others``
    (built-ins) to the end, and return the match's replay and the bot's log (of each of its
    seats, one after the other, in a team game)."""
    store = Store(f"sqlite:///{home.parent / 'arena.db'}")
    store.upgrade()
    artifact = store_submission(BOTS / bot, home)
    with store.session() as session:
        version = bot_version(session, game, "attacker", f"artifact:{artifact.digest}", None, artifact.entry)
        version.validated = True
        created = create(session, TournamentSpec(game=game, bots=["attacker", *others], **spec), None)
        tournament_id, version_id = created.tournament.id, version.id
    run_local(tournament_id, store.url, workers=1)
    with store.session() as session:
        match = session.query(Match).filter_by(tournament_id=tournament_id).one()
        assert match.status == "done", match.error
        agents = [agent for agent, entrant in enumerate(match.entrants) if entrant == version_id]
        replay = json.loads(blobs.get(session, match.replay_blob))
        log = "".join(blobs.get(session, match.log_blobs[agent]).decode() for agent in agents)
    store.dispose()
    return replay, log


def starting_hands(replay: dict[str, Any], record: dict[str, Any]) -> list[tuple[int, ...]]:
    game = get_game(f"believe@{replay['game_version']}")
    config = game.config_type.from_dict(replay["config"])
    state = game.new_state(config, len(replay["seats"]), random.Random(record["seed"]))
    return [state.observation(seat).hand for seat in range(len(replay["seats"]))]


def overlap(guess: list[int], actual: tuple[int, ...]) -> int:
    """Cards of a guessed hand (copies per kind) that the actual hand holds."""
    return sum(min(g, a) for g, a in zip(guess, actual, strict=True))


def score_predictions(replay: dict[str, Any], log: str) -> tuple[int, int, float, float]:
    """(predicted hands, exactly right, share of predicted cards that were there, that share
    against the same seat's hand in the match's other deals: what a guess that knows nothing
    scores). Each prediction is matched to its game by the predicting seat's hand."""
    hands = [starting_hands(replay, record) for record in replay["games"]]
    predicted = exact = hits = cards = 0
    baseline = 0.0
    for line in log.splitlines():
        if not line.startswith("PREDICTION "):
            continue
        claim = json.loads(line.removeprefix("PREDICTION "))
        seat, own = claim["seat"], tuple(claim["hand"])
        games = [index for index, dealt in enumerate(hands) if dealt[seat] == own]
        assert games, f"no game dealt {own} to seat {seat}"
        truth = hands[games[0]]
        others = [dealt for dealt in hands if dealt[seat] != own]
        for other, guess in claim["predicted"].items():
            predicted += 1
            exact += tuple(guess) == truth[int(other)]
            cards += sum(guess)
            hits += overlap(guess, truth[int(other)])
            baseline += sum(overlap(guess, dealt[int(other)]) for dealt in others) / len(others)
    return predicted, exact, hits / max(1, cards), baseline / max(1, cards)


@pytest.mark.parametrize("duplicate", [True, False], ids=["duplicate", "plain"])
def test_a_bot_that_records_every_hand_predicts_none_it_may_not_see(home: Path, duplicate: bool) -> None:
    """Before: with duplicate deals the same processes replayed every rotation (6/6 hands known in
    a 9-game match), and without ``--seed`` every match was seed 0 (every hand known)."""
    replay, log = play_tournament(
        home,
        "hand_recorder.py",
        "believe",
        ["builtin:random", "builtin:caller"],
        games_per_match=9,
        duplicate=duplicate,
    )
    assert len(replay["games"]) == 9
    assert sandboxed(log)
    predicted, exact, rate, chance = score_predictions(replay, log)
    assert log.count("PREDICTION ") >= 9, "the recorder did not predict every game"
    assert exact == 0, f"{exact} of {predicted} hidden hands predicted exactly"
    assert rate <= chance + 0.15, f"{rate:.2f} of predicted cards were right; knowing nothing, {chance:.2f}"


def decision_ids_by_leg(log: str) -> list[list[tuple[int, int]]]:
    """The (game index, decision id) pairs a bot was sent, split where a fresh process began."""
    legs: list[list[tuple[int, int]]] = []
    for line in log.splitlines():
        if line.startswith("IDS "):
            game_index, decision_id = map(int, line.split()[1:])
            if decision_id == 1:
                legs.append([])
            legs[-1].append((game_index, decision_id))
    return legs


@pytest.mark.parametrize("duplicate", [True, False], ids=["duplicate", "plain"])
def test_message_ids_count_only_the_bots_own_decisions_and_games(home: Path, duplicate: bool) -> None:
    """Before: decision ids counted every seat's decisions, so their gaps told a bot how often
    the others were asked (a kozel molodka question, which is never shown)."""
    replay, log = play_tournament(
        home, "id_watcher.py", "edible", ["builtin:random"], games_per_match=6, duplicate=duplicate
    )
    legs = decision_ids_by_leg(log)
    assert len(legs) == (2 if duplicate else 1)
    decisions = 0
    for leg in legs:
        assert [decision_id for _, decision_id in leg] == list(range(1, len(leg) + 1))
        games = sorted({game_index for game_index, _ in leg})
        assert games == list(range(len(games))), "game indices are not the leg's own"
        decisions += len(leg)
    agent = 0 if replay["seats"][0]["name"] == "attacker" else 1
    own = sum(
        1 for game in replay["games"] for seat, _, _ in game["actions"] if game["seating"][seat] == agent
    )
    assert decisions == own


def test_a_validation_match_looks_like_any_other(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: validation named its opponents ``random#N``, played 3 games and seeded the bot from
    seed 0, so a bot could behave only while validated. Its match is a ladder match now
    (``arena.ladder.shape``): what a ladder match of three bots tells the bot, validation of that
    shape told it (the spotter behaves when told 3 games, as a 4-seat leg tells too)."""
    monkeypatch.setattr("arena.tournament.validation.shapes", lambda game: (Shape(sides=3),))
    artifact = store_submission(BOTS / "validation_spotter.py", home)
    report = validate(artifact, "edible", BubblewrapSandbox())
    assert not report.passed, "the bot recognised its validation match"
    assert set(report.statuses) == {"crash"}
    ladder = {"games_per_match": LADDER_GAMES, "duplicate": True}
    _, log = play_tournament(home, "validation_spotter.py", "edible", BUILTINS, **ladder)
    told = {line for line in log.splitlines() if line.startswith("INFO ")}
    # The match's log: the checks before it are plainly checks (a bot may tell, and must pass them).
    agent = report.record.names.index("submission")
    assert told == {line for line in report.record.logs[agent].splitlines() if line.startswith("INFO ")}


Stretch = tuple[int, int, bool]
"""What a bot may see of the decisions between two of its own: how many it was shown (the others'
plays), how many questions it knows were asked (under rules that ask every seat still to play),
and whether a window could open (only then is anyone asked)."""


def waits_by_question(replay: dict[str, Any], log: str) -> dict[Stretch, tuple[list[int], list[int]]]:
    """The waits of the bot (``molodka_timer.py``, in every seat it held) for its next request,
    grouped by what it may see of the stretch before, and split by whether another seat was asked
    about a molodka it could declare (and declined) meanwhile. Stretches in which a molodka was
    declared are left out: that is shown to everyone."""
    waits: dict[tuple[int, int], list[int]] = {}
    for line in log.splitlines():
        if line.startswith("WAITS "):
            _, logged_index, logged_seat, values = (line + " ").split(" ", 3)
            waits[int(logged_index), int(logged_seat)] = [
                int(value) for value in values.split(",") if value.strip()
            ]
    groups: dict[Stretch, tuple[list[int], list[int]]] = {}
    game = get_game("kozel")
    for number, record in enumerate(replay["games"]):
        for (index, seat), seat_waits in waits.items():
            if index != record["index"]:
                continue
            steps = play_through(replay, number)
            state = cast(KozelState, next(steps))
            own, shown, public, windows, asked, declared = 0, 0, 0, False, False, False
            for acting, action_data, _ in record["actions"]:
                if acting == seat:
                    if own and not declared:
                        key = (shown, public, windows)
                        groups.setdefault(key, ([], []))[asked].append(seat_waits[own - 1])
                    own, shown, public, windows, asked, declared = own + 1, 0, 0, False, False, False
                else:
                    action = action_from_json(game, action_data)
                    windows |= state.molodka_allowed
                    declared |= isinstance(action, Molodka)
                    if state.asking < 0:
                        shown += 1
                    else:
                        public += state.ask_everyone
                        if isinstance(action, Decline):
                            asked |= any(isinstance(legal, Molodka) for legal in state.legal_actions())
                next(steps)
    return groups


def stratified_auc(groups: dict[Stretch, tuple[list[int], list[int]]]) -> tuple[float, int]:
    """How well a wait tells a stretch with a hidden question from one without, among stretches
    that look alike to the bot: the chance that a wait with a question is longer than one without
    (0.5: no better than a coin), over every such pair; and the number of waits with a question."""
    wins = pairs = 0.0
    asked_waits = 0
    for quiet, asked in groups.values():
        asked_waits += len(asked)
        for wait in asked:
            wins += sum(1.0 if wait > other else 0.5 if wait == other else 0.0 for other in quiet)
            pairs += len(quiet)
    return wins / pairs, asked_waits


def test_the_wait_for_a_request_tells_nothing_of_molodka_questions(home: Path) -> None:
    """Before: the gap between a kozel seat's answer and its next request was 0.3-0.5 ms longer when
    another seat was asked about a molodka (which only the asked seat may know): AUC 0.92-0.97 on
    an idle machine. A window asks every seat still to play now (``KozelState.ask_everyone``). The
    bound, 0.75, is some five standard errors above a coin's 0.5 at a hundred questions (a
    loaded CI machine gave 0.61 once with no channel) and far below the channel's 0.92."""
    replay, log = play_tournament(
        home,
        "molodka_timer.py",
        "kozel",
        ["builtin:random"],
        games_per_match=150,
        config={"action_cap": 5000},
    )
    auc, asked = stratified_auc(waits_by_question(replay, log))
    assert asked >= 30, f"only {asked} waits with a hidden question: too few to tell"
    told = f"the waits tell a hidden molodka question apart: AUC {auc:.2f} over {asked} questions"
    assert auc <= 0.75, told
