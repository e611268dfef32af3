"""Sandboxes for bot processes: ``none`` (trusted local use) and ``bubblewrap`` (untrusted bots),
chosen by name with ``arena.sandbox.backends.make_sandbox``."""

from arena.sandbox.base import BotProgram, NoSandbox, Sandbox, SandboxError, SandboxLimits

__all__ = ["BotProgram", "NoSandbox", "Sandbox", "SandboxError", "SandboxLimits"]
