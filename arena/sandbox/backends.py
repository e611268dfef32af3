"""Choosing a sandbox by name: ``none`` (trusted local use) or ``bubblewrap`` (untrusted bots)."""

from __future__ import annotations

from arena.sandbox.base import NoSandbox, Sandbox, SandboxError, SandboxLimits
from arena.sandbox.bubblewrap import BubblewrapSandbox


def make_sandbox(name: str, limits: SandboxLimits | None = None) -> Sandbox:
    """The backend called ``name``; raises ``SandboxError`` if it cannot run here."""
    if name == "none":
        return NoSandbox()
    if name == "bubblewrap":
        return BubblewrapSandbox(limits)
    raise SandboxError(f"unknown sandbox {name!r}: use none or bubblewrap")
