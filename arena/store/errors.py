"""Errors the store raises (importable without the database libraries)."""


class StoreError(Exception):
    """A request the store refuses; the message says why."""


class AuthError(StoreError):
    """A missing or wrong API token."""


class NotAllowed(StoreError):
    """A request the store refuses for who makes it (an admin's right)."""
