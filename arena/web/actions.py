"""What the API and the page forms both do: submit a bot, and start a tournament.

A submitted bot is stored and answered at once and validated in the background; a tournament is
played by the scheduler service.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from pathlib import Path, PurePath

from fastapi import HTTPException, UploadFile
from pydantic import BaseModel
from sqlalchemy.orm import Session

from arena.store.db import Store, once_more_on_conflict
from arena.store.models import User
from arena.tournament import quota
from arena.tournament.executors import Slots
from arena.tournament.service import Registered, TournamentSpec, create, register, validate_version
from arena.web.views.bots import Validation
from arena.web.views.games import known_game

log = logging.getLogger("arena.web")


class SubmitResult(BaseModel):
    bot_id: int
    version_id: int
    validation: Validation
    """``validating`` while the validation match runs in the background, then ``passed`` (only
    then may the version play) or ``failed``: the bot's page shows it, with the match's log."""


def release(session: Session) -> None:
    """Ends the request's transaction, returning its connection to the pool, before work that
    opens sessions of its own: requests holding a connection while they wait for another drained
    the pool when many came at once (and all failed after 30 s)."""
    session.commit()


class Actions:
    """The app's submissions and tournaments: validations run on ``validations``, each holding one of
    ``slots`` (the places of the local executor's pool) if there are any."""

    def __init__(
        self, store: Store, home: Path, validations: ThreadPoolExecutor, slots: Slots | None
    ) -> None:
        self.store, self.home, self.validations, self.slots = store, home, validations, slots

    def validate_later(self, registered: Registered) -> None:
        def run() -> None:
            try:
                with self.slots.held() if self.slots is not None else nullcontext():
                    validate_version(self.store, registered)
            except Exception:
                log.exception("bot version %d: its validation could not run", registered.version_id)

        self.validations.submit(run)

    def submit_upload(
        self, session: Session, user: User, game: str, name: str, upload: UploadFile, entry: str | None
    ) -> SubmitResult:
        release(session)
        filename = PurePath((upload.filename or "").replace("\\", "/")).name
        if not filename.endswith((".py", ".zip")):
            raise HTTPException(400, f"{filename or 'the upload'}: submit a .py file or a .zip")
        folder = Path(tempfile.mkdtemp(prefix="arena-upload-"))
        try:
            path = folder / filename
            with path.open("wb") as handle:
                shutil.copyfileobj(upload.file, handle)
            registered = register(self.store, self.home, user, known_game(game), name.strip(), path, entry)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        if not registered.validated:
            self.validate_later(registered)
        return SubmitResult(
            bot_id=registered.bot_id,
            version_id=registered.version_id,
            validation="passed" if registered.validated else "validating",
        )

    def start_tournament(self, request_session: Session, spec: TournamentSpec, user: User) -> int:
        """Create the tournament: the scheduler service plays it."""
        release(request_session)
        # a concurrent creation may register the same built-in bot first
        return once_more_on_conflict(lambda: self.create_tournament(spec, user))

    def create_tournament(self, spec: TournamentSpec, user: User) -> int:
        with self.store.session() as session:
            creator = session.merge(user)
            try:
                quota.check_room(session, creator)  # in the creating transaction
            except quota.QuotaError as error:
                raise HTTPException(429, str(error)) from None
            return create(session, spec, creator).tournament.id
