"""A submitted version's code on any host: one blob in the store, unpacked where a process needs it.

The blob is ``submissions.archive`` of its checked files; each process makes a read-only folder
``artifacts/<content digest>`` in its own data folder from the blob where it is missing.

The folder is made as a submission's is (``submissions.install``: written aside, then renamed into
place), so two processes of one host making it at once both find one whole folder. A folder that
is there already is used as it is: its name is its content's digest. Code submitted before code
went into the store has no blob, and plays only where its folder is.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session

from arena.store import blobs
from arena.store.blobs import BlobError
from arena.store.models import BotVersion
from arena.submissions import Artifact, Submission, SubmissionError, install, unarchive


def local_artifact(session: Session, version: BotVersion, home: Path) -> Artifact:
    """``version``'s code as a folder in ``home``, made from its blob if ``home`` lacks it;
    ``BlobError`` names the version when its code cannot be had."""
    artifact = Artifact.stored(home, version.spec, version.entry)
    if artifact.folder.is_dir():
        return artifact
    if not version.code_blob:
        raise BlobError(
            f"bot version {version.id}: its code was stored before code went into the database, and "
            f"this data folder does not have it ({artifact.folder}); submitting the same code again "
            "stores it"
        )
    try:
        submission = Submission(unarchive(blobs.get(session, version.code_blob)), version.entry)
    except (BlobError, SubmissionError) as error:
        raise BlobError(f"bot version {version.id}: its stored code cannot be read: {error}") from None
    if submission.digest != artifact.digest:
        raise BlobError(f"bot version {version.id}: its stored code is not {version.spec}")
    return install(submission, home)
