"""The tournament the throughput benchmarks play: a round robin of a game's quick built-in bots.

It imports ``arena`` from wherever the path finds it, so ``bench/containment.py`` can build
the same tournament with a baseline commit's code as with this tree's.
"""

from __future__ import annotations

from arena.bots import BUILTIN
from arena.games.registry import get_game
from arena.store.db import Store
from arena.store.repo import bot_version, create_tournament
from arena.tournament import schedule


def build(store: Store, game_name: str, games: int, rounds: int) -> int:
    """Create the tournament (duplicate deals, ``games`` per match) in ``store``; its id."""
    game = get_game(game_name)
    # The quick built-ins: throughput is the platform's, not a search bot's thinking time.
    specs = [f"builtin:{name}" for name in BUILTIN[game.name] if name != "search"]
    names = [spec.removeprefix("builtin:") for spec in specs]
    if game.name == "kozel":
        plans = schedule.team_round_robin(names, seed=1, rounds=rounds)
    else:
        seats = max(game.min_seats, min(len(names), 3))
        plans = schedule.round_robin(names, seats, seed=1, rounds=rounds)
    with store.session() as session:
        versions = [
            bot_version(session, game.name, name, spec, None) for name, spec in zip(names, specs, strict=True)
        ]
        tournament = create_tournament(
            session,
            game=game.name,
            game_version=game.version,
            config={},
            kind="bench",
            entrants=versions,
            plans=[[names.index(name) for name in plan.entrants] for plan in plans],
            seeds=[plan.seed for plan in plans],
            games_per_match=games,
            duplicate=True,
            seed=1,
            creator=None,
        )
        return tournament.id
