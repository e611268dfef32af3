"""Reading stored results (SQLite and PostgreSQL): one query, done matches only, duplicate-deal
clusters, kozel's teams; and the parsers behind it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sqlalchemy import Connection, create_engine

import arena.ratings.load as loading
from arena.games.kozel.engine import TEAMS
from arena.games.registry import get_game
from arena.ratings.fit import fit
from arena.ratings.load import _parse_ints, _parse_lists, load_results
from arena.ratings.results import RatingsError
from arena.store.db import Store
from arena.store.models import Base, Bot, BotVersion, GameOutcome, Match, MatchStatus, Tournament


def add_matches(store: Store) -> dict[str, int]:
    """Two kozel matches (one done with duplicate deals, one void) and one edible match; returns bot
    version ids by name."""
    with store.session() as session:
        versions = {}
        for game, names in (("kozel", ["a", "b", "c", "d"]), ("edible", ["a", "e", "f"])):
            for name in names:
                bot = Bot(game=game, name=name)
                session.add(bot)
                session.flush()
                version = BotVersion(bot_id=bot.id, spec=f"builtin:{name}")
                session.add(version)
                session.flush()
                versions[f"{game}:{name}"] = version.id
        kozel = Tournament(
            game="kozel",
            game_version=get_game("kozel").version,
            config={},
            kind="round_robin",
            games_per_match=4,
            seed=1,
            rated=True,
        )
        edible = Tournament(
            game="edible",
            game_version=1,
            config={},
            kind="round_robin",
            games_per_match=3,
            seed=1,
            rated=True,
        )
        session.add_all([kozel, edible])
        session.flush()
        a, b, c, d = (versions[f"kozel:{x}"] for x in "abcd")
        done = Match(tournament_id=kozel.id, index=0, seed=1, entrants=[a, b, c, d], status=MatchStatus.DONE)
        void = Match(tournament_id=kozel.id, index=1, seed=2, entrants=[a, b, c, d], status=MatchStatus.VOID)
        free = Match(
            tournament_id=edible.id,
            index=0,
            seed=3,
            entrants=[versions["edible:a"], versions["edible:e"], versions["edible:f"]],
            status=MatchStatus.DONE,
        )
        session.add_all([done, void, free])
        session.flush()
        seatings = [[a, b, c, d], [d, a, b, c], [c, d, a, b], [b, c, d, a]]
        for index, (seats, ranks) in enumerate(
            zip(seatings, [[0, 2, 0, 2], [2, 0, 2, 0], [0, 0, 0, 0], [2, 0, 2, 0]], strict=True)
        ):
            session.add(
                GameOutcome(
                    match_id=done.id,
                    game="kozel",
                    game_index=index,
                    deal=index // 2,
                    seats=seats,
                    ranks=ranks,
                    statuses=["ok"] * 4,
                )
            )
        session.add(
            GameOutcome(
                match_id=void.id,
                game="kozel",
                game_index=0,
                deal=0,
                seats=[a, b, c, d],
                ranks=[0, 2, 0, 2],
                statuses=["ok"] * 4,
            )
        )
        e_a, e_e, e_f = versions["edible:a"], versions["edible:e"], versions["edible:f"]
        for index, ranks in enumerate([[0, 1, 1], [2, 0, 1], [1, 2, 0]]):
            session.add(
                GameOutcome(
                    match_id=free.id,
                    game="edible",
                    game_index=index,
                    deal=index,
                    seats=[e_a, e_e, e_f],
                    ranks=ranks,
                    statuses=["ok", "timeout", "ok"],
                )
            )
    return versions


def test_load_reads_done_matches_with_teams_and_deal_clusters(store: Store) -> None:
    versions = add_matches(store)
    with store.session() as session:
        kozel = load_results(session, "kozel")
    a, b, c, d = (versions[f"kozel:{x}"] for x in "abcd")
    assert kozel.bot_ids is not None and kozel.bot_ids.tolist() == sorted([a, b, c, d])
    index = {int(bot_id): i for i, bot_id in enumerate(kozel.bot_ids)}
    games = sorted(
        ([int(kozel.bot_ids[x]) for x in seats], ranks, teams) for seats, ranks, teams in kozel.games()
    )
    assert len(games) == 4  # the void match's game is left out
    assert ([a, b, c, d], [0, 2, 0, 2], [0, 1, 0, 1]) in games
    assert ([d, a, b, c], [2, 0, 2, 0], [0, 1, 0, 1]) in games
    assert kozel.clusters is not None and sorted(np.bincount(kozel.clusters).tolist()) == [2, 2]
    assert index[a] == 0
    ladder = fit(kozel)
    assert ladder.games.tolist() == [4, 4, 4, 4]


def test_load_reads_free_for_all_games(store: Store) -> None:
    add_matches(store)
    edible = load_results(store.engine, "edible")
    assert edible.teams is None and edible.n_games == 3
    assert sorted(ranks for _, ranks, _ in edible.games()) == [[0, 1, 1], [1, 2, 0], [2, 0, 1]]
    assert edible.clusters is not None and len(set(edible.clusters.tolist())) == 3
    assert load_results(store.engine, "believe").n_games == 0


def test_load_from_a_plain_sqlite_engine_and_connection(tmp_path: object) -> None:
    engine = create_engine(f"sqlite:///{tmp_path}/plain.db")
    Base.metadata.create_all(engine)
    store = Store(str(engine.url))
    add_matches(store)
    with engine.connect() as connection:
        assert load_results(connection, "kozel").n_games == 4
    assert load_results(engine, "kozel", teams=[0, 0, 1, 1]).teams.tolist()[:4] == [0, 0, 1, 1]  # type: ignore[union-attr]
    store.dispose()


def test_many_outcomes_in_an_sqlite_file_are_read_in_two_halves_at_once(
    tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(f"sqlite:///{tmp_path}/arena.db")
    store.upgrade()
    add_matches(store)
    read: list[tuple[int | None, int | None]] = []
    columns = loading._columns

    def spy(connection: Connection, game: str, first: int | None, last: int | None) -> object:
        read.append((first, last))
        return columns(connection, game, first, last)

    monkeypatch.setattr(loading, "_columns", spy)
    monkeypatch.setattr(loading, "SPLIT_ABOVE", 3)  # kozel outcomes: ids 1..5, edible: 6..8
    with store.engine.connect() as connection:
        whole = load_results(connection, "kozel")  # a caller's connection: one query
    assert read == [(None, None)]
    halves = load_results(store.engine, "kozel")
    assert sorted(read[1:]) == [(1, 2), (3, 5)]
    for name in ("offsets", "bots", "ranks", "teams", "clusters", "bot_ids"):
        assert np.array_equal(getattr(halves, name), getattr(whole, name)), name
    assert halves.n_games == 4  # the void match's game (id 5) is still left out
    read.clear()
    assert load_results(store.engine, "edible").n_games == 3  # ids 6..8: too few to split
    assert read == [(None, None)]
    store.dispose()


def test_the_parsers_read_json_arrays_and_lists_of_integers() -> None:
    values, counts = _parse_lists(b"[1, 22][333, 4, 5][7][12345678, 123456789]")
    assert values.tolist() == [1, 22, 333, 4, 5, 7, 12345678, 123456789]
    assert counts.tolist() == [2, 3, 1, 2]
    assert _parse_ints(b"0,12,3,99999999999").tolist() == [0, 12, 3, 99999999999]
    rng = np.random.default_rng(1)
    for high in (10, 10_000, 10**8, 10**15):
        numbers = rng.integers(0, high, size=2000)
        text = "".join(json.dumps(numbers[i : i + 5].tolist()) for i in range(0, 2000, 5))
        parsed, sizes = _parse_lists(text.encode())
        assert parsed.tolist() == numbers.tolist() and sizes.tolist() == [5] * 400
    assert _parse_lists(b"")[0].size == 0
    compact, sizes = _parse_lists(b"[1,23][ 456 ,7][]")
    assert compact.tolist() == [1, 23, 456, 7] and sizes.tolist() == [2, 2, 0]
    with pytest.raises(RatingsError):
        _parse_lists(b'{"a": 1}')
    for bad in (b"1,,2", b"1,", b",1", b"1 2", b"[1]", b"1234567890123456789"):
        with pytest.raises(RatingsError):
            _parse_ints(bad)
    for bad in (b"[1, 2", b"[1 2]", b"[,1]", b"[1,]", b"1, 2]", b"[1]]", b"[[1]]", b"[1, -2]"):
        with pytest.raises(RatingsError):
            _parse_lists(bad)


def test_kozel_teams_match_the_engine() -> None:
    teams = get_game("kozel").teams
    assert teams is not None
    assert [teams[seat] for team in TEAMS for seat in team] == [0, 0, 1, 1]
