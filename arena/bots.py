"""Finding bots: built-in reference bots by name, and bot files by path."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from sdk.bot import Bot

#: Built-in bots per game: name -> "module:Class".
BUILTIN: dict[str, dict[str, str]] = {
    "edible": {
        "random": "arena.games.edible.bots:RandomBot",
        "heuristic": "arena.games.edible.bots:HeuristicBot",
    },
    "kozel": {
        "random": "arena.games.kozel.bots:RandomBot",
        "heuristic": "arena.games.kozel.bots:HeuristicBot",
        "search": "arena.games.kozel.search:SearchBot",
    },
    "believe": {
        "random": "arena.games.believe.bots:RandomBot",
        "honest": "arena.games.believe.bots:HonestFirstBot",
        "caller": "arena.games.believe.bots:CallerBot",
    },
}


class BotLoadError(Exception):
    """A bot spec that names no loadable bot; the message says why."""


def is_builtin(spec: str) -> bool:
    return spec.startswith("builtin:")


def check_spec(game: str, spec: str) -> None:
    """Raise ``BotLoadError`` unless ``spec`` names a built-in of ``game`` or an existing file."""
    if is_builtin(spec):
        name = spec.removeprefix("builtin:")
        if name not in BUILTIN.get(game, {}):
            known = ", ".join(f"builtin:{key}" for key in BUILTIN.get(game, {})) or "none"
            raise BotLoadError(f"{spec}: no such built-in bot for {game} (known: {known})")
    elif not Path(spec).is_file():
        raise BotLoadError(f"{spec}: no such bot file (use a path to a .py file or builtin:NAME)")


def load_bot(game: str, spec: str) -> Bot[Any, Any]:
    """A fresh bot instance from ``builtin:NAME`` or the path of a Python file defining one Bot class."""
    check_spec(game, spec)
    if is_builtin(spec):
        module_name, _, class_name = BUILTIN[game][spec.removeprefix("builtin:")].partition(":")
        bot_class = getattr(importlib.import_module(module_name), class_name)
    else:
        bot_class = _bot_class_in_file(Path(spec))
    bot: Bot[Any, Any] = bot_class()
    return bot


def _bot_class_in_file(path: Path) -> type[Bot[Any, Any]]:
    module_name = f"arena_bot_{abs(hash(path.resolve()))}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise BotLoadError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    try:
        loader_spec.loader.exec_module(module)
    except Exception as error:
        raise BotLoadError(f"{path}: importing it failed: {error!r}") from error
    classes = [
        value
        for value in vars(module).values()
        if inspect.isclass(value) and issubclass(value, Bot) and value.__module__ == module_name
    ]
    if len(classes) != 1:
        found = ", ".join(cls.__name__ for cls in classes) or "none"
        raise BotLoadError(f"{path}: expected exactly one Bot subclass defined in the file, found {found}")
    return classes[0]
