"""``arena bot test NEW --against OLD --game G``: start an A/B test (``arena.tournament.abtest``)
and follow it to its verdict."""

from __future__ import annotations

import argparse
import sys

from arena.cli.args import UsageError
from arena.cli.executors import executor_for
from arena.cli.services import current_user, open_store, uses_store
from arena.ratings.sprt import Hypotheses, SprtError
from arena.store.db import Store
from arena.store.errors import StoreError
from arena.store.models import AbTest, User
from arena.tournament import abtest
from arena.tournament.quota import QuotaError
from arena.tournament.scheduler import Scheduler

VERDICTS = {
    "better": "NEW is better (H1 accepted)",
    "worse": "NEW is worse (H0 accepted, and its Elo interval lies below 0)",
    "no difference": "no difference (H0 accepted: NEW is not ELO1 better)",
    "cap reached": "the game cap was reached before either bound: no verdict",
}


@uses_store
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
