"""grpc moves a match's bytes in the thread that polls, on the arena's side and the SDK's
(``arena.transport.grpc_io``): configured before grpc loads, keeping what the environment chose."""

from __future__ import annotations

import os

from fresh import fresh_python

_EXPERIMENTS_AFTER_IMPORT = """
import os, sys
import {module}
assert "grpc" in sys.modules
print(os.environ["GRPC_EXPERIMENTS"])
"""


def _experiments_after_importing(module: str, chosen: str | None) -> list[str]:
    environment = {key: value for key, value in os.environ.items() if key != "GRPC_EXPERIMENTS"}
    if chosen is not None:
        environment["GRPC_EXPERIMENTS"] = chosen
    return fresh_python(_EXPERIMENTS_AFTER_IMPORT.format(module=module), environment).strip().split(",")


def test_the_arena_and_the_sdk_load_grpc_with_its_io_in_the_polling_thread() -> None:
    for module in ("arena.transport.server", "sdk.client"):
        assert _experiments_after_importing(module, None) == [
            "-event_engine_client",
            "-event_engine_listener",
        ]


def test_what_the_environment_chose_is_kept() -> None:
    assert _experiments_after_importing("sdk.client", "event_engine_client,other") == [
        "event_engine_client",
        "other",
        "-event_engine_listener",
    ]
