"""``arena match``: a tournament's matches, a stored match's replay shown or saved as a
file, and a seat's log.

They read the store (``--db``, else ``$ARENA_DATABASE_URL``, else SQLite in ``$ARENA_HOME``) and no
folder, so a match that a worker on another host played reads the same as one played here. What
they show, and to whom, is the web app's (``arena.web.views``): a finished match's replay is
anyone's, a seat's log is for its bot's owner and admins (``can_see_private``), the caller being
the user of the API token (``--token``, ``$ARENA_API_TOKEN``; on the embedded default without
one, the local admin).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from arena.cli.args import UsageError
from arena.cli.services import current_user, open_store
from arena.runner import replay
from arena.store.db import database_errors
from arena.store.errors import NotAllowed, StoreError
from arena.web.views.common import Forbidden, NotFound
from arena.web.views.matches import match_log
from arena.web.views.replays import file_name, replay_file
from arena.web.views.tournaments import tournament_page


def _answered(handler: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``handler``, with the store's errors and the web app's refusals said in one line."""

    def run(args: argparse.Namespace) -> int:
        with database_errors(), _refusals():
            return handler(args)

    return run


@contextlib.contextmanager
def _refusals() -> Iterator[None]:
    """What the web app answers 404 and 403, as the command line's one-line errors."""
    try:
        yield
    except NotFound as error:
        raise StoreError(str(error)) from None
    except Forbidden as error:
        raise NotAllowed(str(error)) from None


@_answered
def cmd_list(args: argparse.Namespace) -> int:
    with open_store(args).session() as session:
        page = tournament_page(session, args.tournament)
    kind = "the ladder's standing tournament, newest first" if page.ladder else page.kind
    print(f"tournament {page.id} ({page.game}, {kind}): {len(page.matches)} match(es)")
    header = f"{'match':>7}  {'status':<21}  {'finished (UTC)':<16}  bots in seat order"
    print(header)
    print("-" * len(header))
    for match in page.matches:
        finished = f"{match.finished_at:%Y-%m-%d %H:%M}" if match.finished_at else "-"
        print(f"{match.id:>7}  {match.status:<21}  {finished:<16}  {', '.join(match.opponents)}")
    print("`arena match show ID` shows one; `arena match save ID` writes its replay file")
    return 0


def _replay(args: argparse.Namespace) -> bytes:
    """The match's replay file, as recorded, read from the store (no copy kept)."""
    with open_store(args).session() as session:
        return replay_file(session, args.id, None)


@_answered
def cmd_show(args: argparse.Namespace) -> int:
    source = f"match {args.id}"
    print(replay.describe(replay.loads(_replay(args), f"{source}'s replay"), args.game, source))
    return 0


@_answered
def cmd_save(args: argparse.Namespace) -> int:
    data = _replay(args)
    path = args.file or Path(file_name(args.id))
    if path.is_dir():
        path /= file_name(args.id)
    try:
        with path.open("wb" if args.force else "xb") as out:
            out.write(data)
    except FileExistsError:
        raise UsageError(f"{path} exists: give --force to overwrite it") from None
    print(f"match {args.id}'s replay: {path} ({len(data):,} bytes); `arena replay verify {path}` replays it")
    return 0


@_answered
def cmd_log(args: argparse.Namespace) -> int:
    store = open_store(args)
    user = current_user(store, args)
    with store.session() as session:
        text = match_log(session, args.id, args.seat, user)
    if not text:
        print(f"arena: match {args.id}, seat {args.seat}: the bot wrote nothing to its log", file=sys.stderr)
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0
