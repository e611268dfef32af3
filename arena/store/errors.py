"""Errors the store raises (importable without the database libraries)."""


class StoreError(Exception):
    """A request the store refuses; the message says why."""


class AuthError(StoreError):
    """A missing or wrong API token."""
