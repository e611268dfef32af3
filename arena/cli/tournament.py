"""``arena tournament``, ``arena ladder`` and ``arena scheduler``: tournaments created, run and
followed, the ladder of record, and the service that plays every match."""

from __future__ import annotations

import argparse
import signal
import sys
import time

from arena.cli.args import UsageError
from arena.cli.executors import executor_for, interrupt
from arena.cli.services import current_user, open_store, uses_store
from arena.games.registry import get_game
from arena.ladder.feeder import Feeder
from arena.ratings.ladder import ladder_rows, refit
from arena.ratings.rated import TERMS, is_rated
from arena.runner.progress import ProgressBar
from arena.store.db import Store
from arena.store.errors import StoreError
from arena.store.models import MatchStatus, Tournament
from arena.store.queries.ladder import ladder_state
from arena.store.queries.tournaments import not_done, progress, standings
from arena.store.repo.tournaments import retry_failed
from arena.text import clip
from arena.tournament.scheduler import Scheduler
from arena.tournament.service import TournamentSpec, create


@uses_store
def cmd_tournament_create(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    store = open_store(args)
    user = current_user(store, args)
    spec = TournamentSpec(
        game=game.name,
        bots=args.bots,
        games_per_match=args.games_per_match,
        rounds=args.rounds,
        kind=args.kind,
        seats=args.seats,
        duplicate=args.duplicate,
        seed=args.seed,
        config=args.config,
        rated=args.rated,
    )
    with store.session() as session:
        # the operator, on the store itself: the limits keep the web app's users from swamping it
        created = create(session, spec, user, limited=False)
        tournament_id = created.tournament.id
    low, high = created.meetings
    print(
        f"tournament {tournament_id}: {game.game_id}, {created.matches} matches of {args.games_per_match} "
        f"games, {created.seats} seats, every pair meets {low}-{high} times"
        + (", duplicate deals" if args.duplicate else "")
        + (", rated" if args.rated else ", unrated (its own standings; no ladder moves)")
    )
    if args.run:
        args.id, args.executor, args.workers, args.queue_ahead = tournament_id, "local", None, None
        return cmd_tournament_run(args)
    return 0


def _tournament(store: Store, tournament_id: int) -> tuple[int, int]:
    with store.session() as session:
        tournament = session.get(Tournament, tournament_id)
        if tournament is None:
            raise StoreError(f"no tournament {tournament_id}")
        return len(tournament.matches), sum(match.status == MatchStatus.DONE for match in tournament.matches)


@uses_store
def cmd_tournament_run(args: argparse.Namespace) -> int:
    store = open_store(args)
    executor = executor_for(args, store)
    current_user(store, args)
    total, done = _tournament(store, args.id)
    bar = ProgressBar(total, label=f"tournament {args.id}")
    bar.update(done)
    started = time.perf_counter()
    scheduler = Scheduler(
        store,
        executor,
        only=args.id,
        on_progress=lambda finished, _: bar.update(finished),
        on_problem=bar.say,
    )
    try:
        scheduler.run()
    except KeyboardInterrupt:
        bar.close()
        left = (
            "the matches it was playing are pending again"
            if args.executor == "local"
            else "the workers play the matches already queued"
        )
        raise KeyboardInterrupt(
            f"tournament {args.id} stopped, {left}; `arena tournament run {args.id}` resumes it"
        ) from None
    bar.close()
    elapsed = time.perf_counter() - started
    print_status(store, args.id)
    with store.session() as session:
        tournament = session.get_one(Tournament, args.id)
        game, counts = tournament.game, is_rated(tournament)
    print()
    if counts:
        refit_ladder(store, game)
        print_ladder(store, game)
    else:
        print(f"tournament {args.id} is unrated: the standings above are its own, and the {game} ladder")
        print(f"counts only rated play (`arena ladder {game}` says what that is)")
    with store.session() as session:
        count = progress(session, args.id)[MatchStatus.DONE] - done
    if elapsed > 0 and count:
        print(f"{count} matches in {elapsed:.1f} s: {60 * count / elapsed:.1f} matches/minute")
    return _complete(store, args.id)


@uses_store
def cmd_scheduler(args: argparse.Namespace) -> int:
    """The scheduler service, until Ctrl-C or SIGTERM (a container's stop)."""
    store = open_store(args)
    executor = executor_for(args, store)

    def tournament_done(tournament_id: int) -> None:
        with store.session() as session:
            tournament = session.get_one(Tournament, tournament_id)
            game, rated = tournament.game, is_rated(tournament)
        counts = _counts(store, tournament_id)
        if rated:
            refit_ladder(store, game)
        summary = ", ".join(f"{status} {count}" for status, count in counts.items() if count)
        ladder = f"{game} ladder refitted" if rated else "unrated: no ladder moves"
        print(f"tournament {tournament_id} ({game}) has finished: {summary}; {ladder}", flush=True)

    said: dict[str, float] = {}

    def problem(text: str) -> None:
        """Said when it starts, then every 10 seconds while it lasts."""
        if time.monotonic() - said.get(text, -10.0) >= 10.0:
            said[text] = time.monotonic()
            print(text, file=sys.stderr, flush=True)

    if args.max_matches and args.no_ladder:
        raise UsageError("--max-matches counts ladder matches: it cannot go with --no-ladder")
    ladder = None if args.no_ladder else Feeder(store, max_matches=args.max_matches)
    signal.signal(signal.SIGTERM, interrupt)
    scheduler = Scheduler(store, executor, on_problem=problem, on_done=tournament_done, ladder=ladder)
    then = ", and ladder matches with the room left" if ladder else ""
    goes = f"every tournament's matches go to {executor.where}{then}"
    print(f"scheduler {scheduler.name}: {goes}; Ctrl-C stops it", flush=True)
    try:
        scheduler.run()
    except KeyboardInterrupt:
        raise KeyboardInterrupt("scheduler stopped; a scheduler started again carries on") from None
    if ladder is not None and args.max_matches:
        games = sorted({game for game, follower in ladder.followers.items() if follower.counted})
        shown = ", ".join(f"`arena ladder {game} --stored`" for game in games) or "`arena ladder GAME`"
        print(f"{len(ladder.created)} ladder matches played; {shown} shows the ladder")
    return 0


def _complete(store: Store, tournament_id: int) -> int:
    """0 if every match of the tournament is done; else says which are not, and why, and 1."""
    with store.session() as session:
        unfinished = not_done(session, tournament_id)
        for match in unfinished:
            reason = f": {clip(match.error, 200)}" if match.error else ""
            print(f"match {match.id} {match.status}{reason}", file=sys.stderr)
        failed = sum(match.status == MatchStatus.FAILED_INFRASTRUCTURE for match in unfinished)
    if failed:
        retry = f"arena tournament retry {tournament_id}"
        print(f"{failed} matches failed: `{retry}` plays them again", file=sys.stderr)
    return 1 if unfinished else 0


@uses_store
def cmd_tournament_retry(args: argparse.Namespace) -> int:
    store = open_store(args)
    current_user(store, args)
    _tournament(store, args.id)
    with store.session() as session:
        retried = retry_failed(session, args.id)
    print(f"{len(retried)} failed matches of tournament {args.id} are pending again")
    return 0


def _counts(store: Store, tournament_id: int) -> dict[str, int]:
    with store.session() as session:
        return progress(session, tournament_id)


def print_status(store: Store, tournament_id: int) -> None:
    counts = _counts(store, tournament_id)
    with store.session() as session:
        rated = is_rated(session.get_one(Tournament, tournament_id))
    print("matches: " + ", ".join(f"{status} {count}" for status, count in counts.items() if count))
    print(
        "standings: rated (its matches move the ladder)"
        if rated
        else "standings: unrated (its own; no ladder moves)"
    )
    with store.session() as session:
        rows = standings(session, tournament_id)
    header = (
        f"{'#':>3}  {'bot':<20} {'matches':>7} {'games':>6} {'wins':>6} {'score':>8} {'mean rank':>9}  faults"
    )
    print(header)
    print("-" * len(header))
    for place, row in enumerate(rows, 1):
        faults = ", ".join(f"{status} {count}" for status, count in sorted(row["faults"].items())) or "-"
        print(
            f"{place:>3}  {row['bot']:<20} {row['matches']:>7} {row['games']:>6} {row['wins']:>6} "
            f"{row['score']:>8.1f} {row['mean_rank']:>9.2f}  {faults}"
        )


@uses_store
def cmd_tournament_status(args: argparse.Namespace) -> int:
    store = open_store(args)
    _tournament(store, args.id)
    print_status(store, args.id)
    return 0


@uses_store
def cmd_ladder(args: argparse.Namespace) -> int:
    """Refit the ladder of record from every stored result of the game (unless ``--stored``) and
    print it."""
    game = get_game(args.game)
    store = open_store(args)
    if not args.stored:
        refit_ladder(store, game.name)
    print_ladder(store, game.name)
    return 0


def print_ladder(store: Store, name: str) -> None:
    game = get_game(name)
    with store.session() as session:
        rows = ladder_rows(session, game.name)
        fitted = ladder_state(session, game.name)
    if not rows:
        print(f"no {game.name} results yet: submit bots (`arena bot submit`) or run a tournament first")
        return
    when = (
        f"batch fit of {fitted.fit_games} games at {fitted.fitted_at:%Y-%m-%d %H:%M} UTC"
        if fitted and fitted.fitted_at
        else "live Elo only, no fit yet"
    )
    print(f"{game.title} ladder ({when}): Elo with 95% intervals")
    print("rated play only: " + "; ".join(TERMS))
    header = f"{'#':>3}  {'bot':<24} {'Elo':>7} {'+-95%':>7} {'games':>7}  {'P(better than next)':>19}"
    print(header)
    print("-" * len(header))
    ranked = [row for row in rows if row.rank is not None]
    for row in ranked:
        superiority = "" if row.superiority is None else f"{100 * row.superiority:.1f}%"
        halfwidth = "" if row.halfwidth is None else f"{row.halfwidth:.1f}"
        flag = " provisional" if row.provisional or len(ranked) < 2 else ""
        print(
            f"{row.rank:>3}  {row.bot:<24} {row.elo:>7.1f} {halfwidth:>7} {row.games:>7}  "
            f"{superiority:>19}{flag}"
        )
    flagged = [row for row in rows if row.flag]
    if flagged:
        print()
        print("inconsistent results: these bots' results depart from their rating by more than chance allows")
        for row in flagged:
            print(f"     {row.bot:<24} {row.flag}")
    unfitted = [row for row in rows if not row.fitted]
    if unfitted:
        print()
        print("not yet fitted: a live Elo from their first rated matches; the next fit ranks them")
        for row in unfitted:
            print(f"     {row.bot:<24} {row.live_elo:>7.1f} {'':>7} {row.live_games:>7}")
    apart = [row for row in rows if row.fitted and not row.connected]
    if apart:
        print()
        print("not yet connected: no chain of games links these bots to the ladder above, so they have")
        print("no rank there yet (the ladder's matchmaking plays them against it first)")
        for row in apart:
            print(f"     {row.bot:<24} {'':>7} {'':>7} {row.games:>7}")


def refit_ladder(store: Store, game: str) -> None:
    """The batch fit of ``game``'s stored results, written to the store."""
    with store.session() as session:
        refit(store.engine, session, game)
