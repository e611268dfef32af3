"""``arena bot test NEW --against OLD --game G``: start an A/B test (``arena.tournament.abtest``)
and follow it to its verdict."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any

from arena.cli.args import UsageError, positive, with_executor, with_store
from arena.cli.executors import executor_for
from arena.cli.services import current_user, open_store, uses_store
from arena.ladder.shape import LADDER_GAMES
from arena.ratings.sprt import Hypotheses, SprtError
from arena.store.db import Store
from arena.store.errors import StoreError
from arena.store.models import AbTest, User
from arena.tournament import abtest
from arena.tournament.abtest import DEFAULT_MAX_GAMES
from arena.tournament.quota import QuotaError
from arena.tournament.scheduler import Scheduler


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def add_test_command(bot_commands: Any) -> None:
    """Add ``arena bot test NEW --against OLD --game G``."""
    test = with_store(
        bot_commands.add_parser(
            "test",
            help="is NEW better than OLD? play them until a sequential test (SPRT) says so",
            description="Plays duplicate-deal matches of NEW against OLD (unrated, on the executor given, "
            "or the scheduler service's when one runs) and runs a sequential probability ratio test after "
            "every match: H0, NEW is ELO0 Elo better, against H1, ELO1 better. It stops when H1 is accepted "
            "(better), H0 is (worse, or no difference), or at the game cap, printing the LLR, its bounds, "
            "the games and the Elo difference with its 95% interval as it goes.",
            epilog="BOT: builtin:NAME, a stored bot's name (its newest validated version), or NAME@VERSION "
            "(a version id, as the bot's page lists them): your own bots, or bots open to others.",
        )
    )
    test.add_argument("new", metavar="NEW", help="the bot under test")
    test.add_argument("--against", required=True, metavar="OLD", help="the bot to beat")
    test.add_argument("--game", required=True)
    test.add_argument(
        "--panel",
        nargs="+",
        default=[],
        metavar="BOT",
        help="free-for-all games: opponents who play NEW's matches and, seated alike on the same deals, "
        "OLD's (default: NEW against OLD, two seats)",
    )
    test.add_argument("--elo0", type=_number, default=0.0, help="H0: NEW is this much better (default 0)")
    test.add_argument("--elo1", type=_number, default=5.0, help="H1: NEW is this much better (default 5)")
    test.add_argument(
        "--alpha", type=_number, default=0.05, help="chance of 'better' under H0 (default 0.05)"
    )
    test.add_argument("--beta", type=_number, default=0.05, help="chance of missing H1 (default 0.05)")
    test.add_argument(
        "--max-games",
        type=positive,
        default=DEFAULT_MAX_GAMES,
        metavar="N",
        help="game cap (default %(default)s)",
    )
    test.add_argument(
        "--games-per-match",
        type=positive,
        default=LADDER_GAMES,
        help="games in each match, a multiple of the seats (default %(default)s, as a ladder match)",
    )
    with_executor(test)
    test.set_defaults(handler=uses_store(cmd_bot_test))


VERDICTS = {
    "better": "NEW is better (H1 accepted)",
    "worse": "NEW is worse (H0 accepted, and its Elo interval lies below 0)",
    "no difference": "no difference (H0 accepted: NEW is not ELO1 better)",
    "cap reached": "the game cap was reached before either bound: no verdict",
}


def cmd_bot_test(args: argparse.Namespace) -> int:
    try:
        hypotheses = Hypotheses(args.elo0, args.elo1, args.alpha, args.beta)
    except SprtError as error:
        raise UsageError(str(error)) from None
    store = open_store(args)
    executor = executor_for(args, store)
    user = current_user(store, args)
    spec = abtest.TestSpec(
        game=args.game,
        new=args.new,
        old=args.against,
        hypotheses=hypotheses,
        max_games=args.max_games,
        games_per_match=args.games_per_match,
        panel=tuple(args.panel),
    )
    try:
        with store.session() as session:
            test = abtest.create(session, spec, session.get_one(User, user.id))
            test_id, tournament_id = test.id, test.tournament_id
    except QuotaError as error:
        raise StoreError(str(error)) from None
    first = current(store, test_id)
    h = first.hypotheses
    print(
        f"A/B test {test_id} (tournament {tournament_id}), {first.game}: {first.new} (version "
        f"{first.new_version}) against {first.old} (version {first.old_version})"
        f"{', each with ' + ', '.join(first.panel) if first.panel else ''}; H0 {h.elo0:+g} Elo, "
        f"H1 {h.elo1:+g} Elo, alpha {h.alpha:g}, beta {h.beta:g}; at most {first.max_games} games",
        flush=True,
    )
    shown = [0, ""]

    def landed(finished: int, _total: int) -> None:
        if finished != shown[0]:  # a match is over: said if it changed the test (a failed one does not)
            shown[0] = finished
            text = current(store, test_id).state.text()
            if text != shown[1]:
                shown[1] = text
                print(text, flush=True)

    scheduler = Scheduler(
        store,
        executor,
        only=tournament_id,
        on_progress=landed,
        on_problem=lambda text: print(text, file=sys.stderr, flush=True),
    )
    try:
        scheduler.run()
    except KeyboardInterrupt:
        raise KeyboardInterrupt(
            f"A/B test {test_id} stopped; `arena tournament run {tournament_id}` resumes it"
        ) from None
    last = current(store, test_id)
    if last.state.text() != shown[1]:
        print(last.state.text())
    print(f"verdict: {VERDICTS.get(last.verdict, last.verdict)}")
    return 0


def current(store: Store, test_id: int) -> abtest.Report:
    with store.session() as session:
        return abtest.report(session, session.get_one(AbTest, test_id))
