"""What ``arena serve`` (or a test) sets for a web app: ``arena.web.app.create_app(settings)``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.submissions import SubmissionLimits


@dataclass
class Settings:
    store_url: str
    home: Path
    """``$ARENA_HOME``: this process's own data folder, where it keeps copies of bot code and replays."""
    executor: str = "local"
    """``local``: the server runs the scheduler service on a process pool of its own; ``celery``:
    an ``arena scheduler`` service sends matches to the workers, and the server only follows."""
    workers: int | None = None
    max_body_bytes: int = SubmissionLimits().max_total_bytes + 256 * 1024
    secure_cookies: bool = False
    """Send cookies only over HTTPS (set when served behind TLS)."""
    validations: int = 2
    """Validation matches run at once, in the background."""
    ladder: bool = True
    """``local``: the server's scheduler also plays the living ladder (``arena.ladder``)."""
