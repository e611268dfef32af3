"""grpc moves a match's bytes in the thread that polls, on the arena's side and the SDK's
(``arena.transport.grpc_io``): configured before grpc loads, keeping what the environment chose."""

from __future__ import annotations

import os

from fresh import fresh_python

_EXPERIMENTS_AS_GRPC_LOADS = """
import os, sys

class Watch:
    seen = None

    def find_spec(self, name, path=None, target=None):
        if name == "grpc" and Watch.seen is None:
            Watch.seen = os.environ.get("GRPC_EXPERIMENTS", "")
        return None

sys.meta_path.insert(0, Watch())
import {module}
print(Watch.seen)
"""
"""Prints ``GRPC_EXPERIMENTS`` as it was when grpc began to load: grpc reads it then."""


def _experiments_as_grpc_loads(module: str, chosen: str | None) -> list[str]:
    environment = {key: value for key, value in os.environ.items() if key != "GRPC_EXPERIMENTS"}
    if chosen is not None:
        environment["GRPC_EXPERIMENTS"] = chosen
    return fresh_python(_EXPERIMENTS_AS_GRPC_LOADS.format(module=module), environment).strip().split(",")


def test_the_arena_and_the_sdk_load_grpc_with_its_io_in_the_polling_thread() -> None:
    for module in ("arena.transport.server", "sdk.client"):
        assert _experiments_as_grpc_loads(module, None) == [
            "-event_engine_client",
            "-event_engine_listener",
        ]


def test_what_the_environment_chose_is_kept() -> None:
    assert _experiments_as_grpc_loads("sdk.client", "event_engine_client,other") == [
        "event_engine_client",
        "other",
        "-event_engine_listener",
    ]
