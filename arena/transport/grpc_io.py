"""How grpc moves bytes in this process: imported before grpc loads, on both sides of the protocol.

grpc's default I/O layer (its EventEngine, for client channels and for servers' listeners) brings
polling and callback threads of its own, so a message passes between more threads before its
completion reaches the event loop: on the one CPU a match keeps to, each is a thread switch. With
both turned off, grpc's older I/O layer (still built in, chosen through grpc's documented
``GRPC_EXPERIMENTS``) reads and writes in the thread that polls. A bare round trip over a unix
socket, 3 clients in turn, one CPU (grpc 1.85): 141-156 us with grpc's default, 91-109 us with
both off, 130-148 us with either alone. ``bench/run.py`` measures its floor with this setting too.

Settings of ``GRPC_EXPERIMENTS`` made by whoever started the process are kept (a bot's process
starts with none: ``arena.sandbox.base.bot_environment``).
"""

from __future__ import annotations

import os

INLINE_IO = ("-event_engine_client", "-event_engine_listener")


def _configure() -> None:
    chosen = [name for name in os.environ.get("GRPC_EXPERIMENTS", "").split(",") if name]
    named = {name.lstrip("-") for name in chosen}
    chosen += [setting for setting in INLINE_IO if setting.lstrip("-") not in named]
    os.environ["GRPC_EXPERIMENTS"] = ",".join(chosen)


_configure()
