"""The tournament commands as a user runs them, and bad input that must change nothing."""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path

import pytest
import redis
from ctrl_c import ctrl_c
from fleet import arena
from services import private_redis, shared_postgres_database
from sqlalchemy import func, select

from arena.ratings.ladder import ladder_rows
from arena.store.db import Store
from arena.store.models import Bot, BotVersion, Match, MatchStatus, Tournament
from arena.web.views.tournaments import tournament_page

ROOT = Path(__file__).resolve().parents[2]


def counts(url: str) -> tuple[int, int, int, int]:
    store = Store(url)
    with store.session() as session:
        result = tuple(
            session.scalar(select(func.count()).select_from(table)) or 0
            for table in (Tournament, Match, Bot, BotVersion)
        )
    store.dispose()
    return result  # type: ignore[return-value]


def test_a_local_tournament_of_built_ins_runs_to_its_standings(tmp_path: Path) -> None:
    run = arena(
        "tournament",
        "create",
        "--game",
        "edible",
        "--bots",
        "builtin:heuristic",
        "builtin:random",
        "--games-per-match",
        "10",
        "--rounds",
        "2",
        "--rated",
        "--run",
        home=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "matches: done 2" in run.stdout
    assert "standings: rated" in run.stdout
    assert "builtin:heuristic" in run.stdout and "matches/minute" in run.stdout
    assert "Edible / Inedible ladder (batch fit of 20 games" in run.stdout  # refitted at the end
    status = arena("tournament", "status", "1", home=tmp_path)
    assert status.returncode == 0 and "builtin:random" in status.stdout
    ladder = arena("ladder", "edible", home=tmp_path)
    assert ladder.returncode == 0, ladder.stderr
    lines = [line for line in ladder.stdout.splitlines() if "builtin:" in line]
    # ranked both (in either order: the deals are secret, and 20 games may go either way)
    assert sorted(line.split()[1] for line in lines) == ["builtin:heuristic", "builtin:random"]
    assert "20 games" in ladder.stdout  # 2 matches of 10 games
    stored = arena("ladder", "edible", "--stored", home=tmp_path)
    assert stored.returncode == 0 and stored.stdout == ladder.stdout  # the refit is order-independent


def test_an_unrated_tournament_has_its_standings_and_moves_no_ladder(tmp_path: Path) -> None:
    words = "tournament create --game edible --bots builtin:heuristic builtin:random --games-per-match 6"
    refused = arena(*words.split(), "--rated", "--seed", "3", home=tmp_path)
    assert refused.returncode != 0 and "Traceback" not in refused.stderr
    assert "its seed was chosen" in refused.stderr
    custom = arena(*words.split(), "--rated", "--config", '{"sausages": 2}', home=tmp_path)
    assert custom.returncode != 0 and "its config is not edible's default" in custom.stderr
    run = arena(*words.split(), "--seed", "3", "--run", home=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "unrated (its own standings; no ladder moves)" in run.stdout
    assert "standings: unrated" in run.stdout and "builtin:heuristic" in run.stdout
    ladder = arena("ladder", "edible", home=tmp_path)
    assert ladder.returncode == 0, ladder.stderr
    assert "no edible results yet" in ladder.stdout


def bot_rows(table: str) -> list[list[str]]:
    """The cells of a printed table's rows of built-in bots."""
    return [line.split() for line in table.splitlines() if "builtin:" in line]


def test_kozel_standings_count_a_team_once_the_same_everywhere(tmp_path: Path) -> None:
    """A kozel team is one bot in two seats: its matches, games and wins count once, the same in
    the tournament's standings (CLI and API) as on the ladder (fitted and live)."""
    bots = ["builtin:heuristic", "builtin:random"]
    words = "tournament create --game kozel --games-per-match 3 --rounds 2 --rated --run --bots"
    run = arena(*words.split(), *bots, home=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "matches: done 2" in run.stdout
    status = arena("tournament", "status", "1", home=tmp_path)
    ladder = arena("ladder", "kozel", "--stored", home=tmp_path)
    assert status.returncode == 0 and ladder.returncode == 0, status.stderr + ladder.stderr
    # "#  bot  matches  games  wins  score  mean rank  faults" and "#  bot  Elo  +-95%  games ..."
    cli = {row[1]: row[2:5] for row in bot_rows(status.stdout)}
    on_ladder = {row[1]: row[4] for row in bot_rows(ladder.stdout)}
    assert cli == {bot: ["2", "6", cli[bot][2]] for bot in bots}  # 2 matches of 3 games each
    assert on_ladder == dict.fromkeys(bots, "6")
    assert sum(int(cli[bot][2]) for bot in bots) <= 6  # a game has one winning team (or none)
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")
    with store.session() as session:
        api = tournament_page(session, 1).standings
        rows = ladder_rows(session, "kozel")
    store.dispose()
    assert {row.bot: [str(row.matches), str(row.games), str(row.wins)] for row in api} == cli
    assert {row.bot: (row.games, row.live_games) for row in rows} == dict.fromkeys(bots, (6, 6))


def test_submitting_a_file_that_is_not_a_bot_fails_validation_and_cannot_enter(tmp_path: Path) -> None:
    not_a_bot = tmp_path / "notabot.py"
    not_a_bot.write_text("print('hello, I am not a bot')\n")
    submit = arena(
        "bot", "submit", str(not_a_bot), "--name", "nobot", "--game", "edible", home=tmp_path / "home"
    )
    assert submit.returncode == 1
    assert "validation FAILED" in submit.stdout
    assert "does the bot file end with `run(MyBot())`?" in submit.stdout
    create = arena(
        "tournament",
        "create",
        "--game",
        "edible",
        "--bots",
        "nobot",
        "builtin:random",
        home=tmp_path / "home",
    )
    assert create.returncode == 2 and "no version that passed validation" in create.stderr


def test_bad_input_gets_a_clear_error_and_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert arena("db", "upgrade", home=home).returncode == 0
    url = f"sqlite:///{(home / 'arena.db').resolve()}"
    before = counts(url)
    cases = [
        (
            ["tournament", "create", "--game", "chess", "--bots", "builtin:random", "builtin:heuristic"],
            "unknown game",
        ),
        (
            ["tournament", "create", "--game", "edible", "--bots", "builtin:random", "builtin:nope"],
            "no such built-in",
        ),
        (
            [
                "tournament",
                "create",
                "--game",
                "edible",
                "--bots",
                "builtin:random",
                "builtin:heuristic",
                "--seats",
                "7",
            ],
            "2..6 seats, not 7",
        ),
        (
            ["tournament", "create", "--game", "edible", "--bots", "builtin:random", "builtin:random"],
            "listed twice",
        ),
        (["tournament", "run", "42"], "no tournament 42"),
        (
            [
                "tournament",
                "create",
                "--game",
                "edible",
                "--bots",
                "builtin:random",
                "builtin:heuristic",
                "--config",
                '{"colour": 1}',
            ],
            "unknown config field",
        ),
    ]
    for args, message in cases:
        result = arena(*args, home=home)
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert message in result.stderr, (args, result.stderr)
        assert "Traceback" not in result.stderr
    wrong = arena(
        "tournament",
        "create",
        "--game",
        "edible",
        "--bots",
        "builtin:random",
        "builtin:heuristic",
        home=home,
        token="not-a-token",
    )
    assert wrong.returncode == 2 and "API token is not valid" in wrong.stderr
    assert counts(url) == before


def test_on_postgresql_a_token_is_required(tmp_path: Path) -> None:
    with shared_postgres_database() as url:
        assert arena("db", "upgrade", "--db", url, home=tmp_path).returncode == 0
        before = counts(url)
        args = [
            "tournament",
            "create",
            "--db",
            url,
            "--game",
            "edible",
            "--bots",
            "builtin:random",
            "builtin:heuristic",
        ]
        missing = arena(*args, home=tmp_path)
        assert missing.returncode == 2 and "API token is required" in missing.stderr
        assert "(--token or ARENA_API_TOKEN)" in missing.stderr  # the variable that works
        wrong = arena(*args, home=tmp_path, token="forged")
        assert wrong.returncode == 2 and "not valid" in wrong.stderr
        assert counts(url) == before


@pytest.mark.parametrize("executor", ["local", "celery"])
def test_ctrl_c_stops_a_tournament_run_with_one_line_and_gives_its_matches_back(
    tmp_path: Path, executor: str
) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) on a coordinator: a short
    message, exit status 130, no traceback; a local run gives back the matches it was playing."""
    words = "tournament create --game edible --games-per-match 5000 --rounds 2 --seed 4 --bots"
    assert arena(*words.split(), "builtin:heuristic", "builtin:random", home=tmp_path).returncode == 0
    store = Store(f"sqlite:///{tmp_path / 'arena.db'}")

    def statuses() -> list[tuple[str, int]]:
        with store.session() as session:
            return [(match.status, match.attempts) for match in session.scalars(select(Match))]

    broker: list[redis.Redis] = []

    def under_way() -> bool:
        """A match is being played, or (celery, no worker) sent to the broker's queue."""
        if broker:
            return bool(broker[0].llen("matches"))
        return (MatchStatus.RUNNING, 1) in statuses()

    with ExitStack() as stack:
        env = {key: value for key, value in os.environ.items() if not key.startswith("ARENA_")}
        env["ARENA_HOME"] = str(tmp_path)
        if executor == "celery":  # a broker of its own and no workers: the coordinator waits
            env["ARENA_BROKER_URL"] = stack.enter_context(private_redis()).url
            broker.append(stack.enter_context(redis.Redis.from_url(env["ARENA_BROKER_URL"])))
        run = ctrl_c(["tournament", "run", "1", "--executor", executor], ROOT, under_way, env)
    assert run.returncode == 130, run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("arena: interrupted: tournament 1 stopped") and "`arena tournament run 1`" in last
    if executor == "local":
        assert "pending again" in last
        assert statuses() == [(MatchStatus.PENDING, 0)] * 2  # given back, the attempt not counted
    store.dispose()
