"""``arena games`` and ``arena runtimes``: what can be played here, and in which languages."""

from __future__ import annotations

import argparse

from arena.games.registry import all_games
from arena.manifest import MANIFEST, RUNTIMES, python_runtime


def cmd_games(args: argparse.Namespace) -> int:
    for game in all_games():
        bots = ", ".join(f"builtin:{name}" for name in game.builtin_bots)
        print(f"{game.name:<8} {game.title} (id {game.game_id}, {game.min_seats}-{game.max_seats} seats)")
        print(f"         rules: {game.rules_path}")
        print(f"         built-in bots: {bots or 'none'}")
    return 0


def cmd_runtimes(args: argparse.Namespace) -> int:
    bots = python_runtime()
    missing = []
    print(f"{'runtime':<9} {'language':<22} {'version':<16} in {MANIFEST}")
    for runtime in RUNTIMES:
        # Python bots run on the bot runtime alone: without it, no Python bot runs sandboxed.
        version = runtime.version() if runtime.name != "python3" or bots.installed() else None
        if version is None:
            missing.append(runtime)
            continue
        print(f"{runtime.name:<9} {runtime.language:<22} {version:<16} {runtime.example}")
        if runtime.name == "python3":
            libraries = ", ".join(f"{name} {version}" for name, version in bots.libraries())
            print(f"{'':<9} bot runtime {bots.name} (a .py bot runs on it too): the standard library,")
            print(f"{'':<9} the SDK, the engines and: {libraries}")
    print(
        f"{'./PROGRAM':<9} {'your own program':<22} {'(always)':<16} " + 'run = ["./bot"]  (a static binary)'
    )
    for runtime in missing:
        fix = bots.missing() if runtime.name == "python3" else f"Debian: apt-get install {runtime.package}"
        print(f"not installed: {runtime.name} ({runtime.language}; {fix})")
    return 0
