"""The repository: every write to the store, by topic (accounts, bots, tournaments, matches, A/B tests,
ratings).

Every function takes an open session and leaves committing to the caller's ``Store.session()``
block, so that one unit of work is one transaction. The names callers import from here are the
topic modules' own.
"""

from arena.store.repo.accounts import api_token, authenticate, create_user, hash_token
from arena.store.repo.bots import bot_version, latest_version
from arena.store.repo.matches import (
    MatchBlobs,
    claim,
    expire_leases,
    give_back,
    outcomes_of,
    record_result,
    release,
    renew,
)
from arena.store.repo.tournaments import create_tournament, retry_failed

__all__ = [
    "MatchBlobs",
    "api_token",
    "authenticate",
    "bot_version",
    "claim",
    "create_tournament",
    "create_user",
    "expire_leases",
    "give_back",
    "hash_token",
    "latest_version",
    "outcomes_of",
    "record_result",
    "release",
    "renew",
    "retry_failed",
]
