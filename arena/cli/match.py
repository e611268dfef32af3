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

from arena.cli.args import UsageError, positive, whole_number, with_store
from arena.cli.services import current_user, database_errors, open_store
from arena.runner import replay
from arena.store.errors import NotAllowed, StoreError
from arena.web.views.common import Forbidden, NotFound
from arena.web.views.matches import match_log
from arena.web.views.replays import file_name, replay_file
from arena.web.views.tournaments import tournament_page

WHERE = (
    "It reads the store (--db, else $ARENA_DATABASE_URL, else SQLite in $ARENA_HOME), whichever "
    "host played the match."
)


def register(name: str, parser: argparse.ArgumentParser) -> None:
    parser.description = f"Matches that tournaments and the ladder played, from the store. {WHERE}"
    actions = parser.add_subparsers(dest="match_command", required=True, metavar="ACTION")

    def action(name: str, summary: str, description: str) -> argparse.ArgumentParser:
        parser = actions.add_parser(name, help=summary, description=f"{description} {WHERE}")
        return with_store(parser)

    listing = action(
        "list",
        "a tournament's matches: id, status, bots in seat order",
        "The matches of a tournament (a ladder's standing one: its newest 100).",
    )
    listing.add_argument("tournament", type=positive, help="the tournament's id")
    show = action(
        "show",
        "print a finished match's replay readably, as `arena replay show` prints a file",
        "Every decision, fault and result of a finished match.",
    )
    show.add_argument("id", type=positive, help="the match's id (`arena match list TOURNAMENT`)")
    show.add_argument("--game", type=int, action="append", help="only this game index (repeatable)")
    save = action(
        "save",
        "write a finished match's replay file, for `arena replay show`, `verify` and `rerun`",
        "The replay file as recorded, byte for byte (the web app's download).",
    )
    save.add_argument("id", type=positive, help="the match's id")
    save.add_argument(
        "file",
        type=Path,
        nargs="?",
        help="where to write it (default ./match-ID-replay.json; a folder: that name in it)",
    )
    save.add_argument("--force", action="store_true", help="overwrite the file if it exists")
    log = action(
        "log",
        "print a seat's bot log (its stderr): for the bot's owner and admins",
        "A finished match's log of one seat's bot, for that bot's owner and admins, as on the web "
        "app: you are the user of --token (or $ARENA_API_TOKEN; on the embedded default without one, "
        "its local admin).",
    )
    log.add_argument("id", type=positive, help="the match's id")
    log.add_argument(
        "--seat",
        type=whole_number(0),
        required=True,
        help="the bot's place in the match's seat order, from 0 (as `arena match list` lists its "
        "bots; its agent number in the replay)",
    )
    listing.set_defaults(handler=_answered(cmd_list))
    show.set_defaults(handler=_answered(cmd_show))
    save.set_defaults(handler=_answered(cmd_save))
    log.set_defaults(handler=_answered(cmd_log))


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


def cmd_show(args: argparse.Namespace) -> int:
    source = f"match {args.id}"
    print(replay.describe(replay.loads(_replay(args), f"{source}'s replay"), args.game, source))
    return 0


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


def cmd_log(args: argparse.Namespace) -> int:
    store = open_store(args)
    user = current_user(store, args)
    with store.session() as session:
        text = match_log(session, args.id, args.seat, user)
    if not text:
        print(f"arena: match {args.id}, seat {args.seat}: the bot wrote nothing to its log", file=sys.stderr)
    sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    return 0
