"""Sandboxes for bot processes: ``none`` (trusted local use) and ``bubblewrap`` (untrusted bots)."""

from arena.sandbox.base import BotProgram, NoSandbox, Sandbox, SandboxError, SandboxLimits


def make_sandbox(name: str, limits: SandboxLimits | None = None) -> Sandbox:
    """The backend called ``name``; raises ``SandboxError`` if it cannot run here."""
    if name == "none":
        return NoSandbox()
    if name == "bubblewrap":
        from arena.sandbox.bubblewrap import BubblewrapSandbox

        return BubblewrapSandbox(limits)
    raise SandboxError(f"unknown sandbox {name!r}: use none or bubblewrap")


__all__ = ["BotProgram", "NoSandbox", "Sandbox", "SandboxError", "SandboxLimits", "make_sandbox"]
