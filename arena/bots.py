"""Finding bots: built-in reference bots by name, and bot files by path."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from typing import Any

from arena.games.base import BadConfig
from arena.games.bot import Bot
from arena.games.registry import get_game
from arena.launch import vendored
from arena.manifest import MANIFEST
from arena.submissions import SubmissionError, choose_entry, read_submission


def builtin_names(game: str) -> tuple[str, ...]:
    """The names of ``game``'s built-in bots (``builtin:NAME``); none for an unknown game."""
    try:
        return tuple(get_game(game).builtin_bots)
    except BadConfig:
        return ()


class BotLoadError(Exception):
    """A bot spec that names no loadable bot; the message says why."""


def is_builtin(spec: str) -> bool:
    return spec.startswith("builtin:")


WHAT_A_BOT_IS = (
    "a bot is builtin:NAME (see `arena games`), a Python file (.py) that defines one "
    "sdk.Bot subclass and ends with run(MyBot()), or a folder whose arena-bot.toml says how to "
    "run it, in any language (see `arena runtimes`)"
)


def check_spec(game: str, spec: str) -> None:
    """Raise ``BotLoadError`` unless ``spec`` names a built-in of ``game`` or a file that can be a
    bot (a Python source file: it compiles; nothing in it runs here). The one place that says what
    a bot is, so that what cannot be one is refused before a match starts."""
    if is_builtin(spec):
        name = spec.removeprefix("builtin:")
        if name not in builtin_names(game):
            known = ", ".join(f"builtin:{key}" for key in builtin_names(game)) or "none"
            raise BotLoadError(f"{spec}: no such built-in bot for {game} (known: {known})")
        return
    path = Path(spec)
    if not path.exists():
        raise BotLoadError(f"{spec}: no such bot file; {WHAT_A_BOT_IS}")
    if path.is_dir():
        _check_folder(path)
        return
    if not path.is_file() or path.suffix != ".py":
        raise BotLoadError(f"{spec}: not a bot: {WHAT_A_BOT_IS}")
    try:
        source = path.read_bytes()
    except OSError as error:
        raise BotLoadError(f"{spec}: cannot read it: {error.strerror}") from None
    try:
        compile(source, spec, "exec", dont_inherit=True)
    except SyntaxError as error:
        problem = f"not valid Python ({f'line {error.lineno}: ' if error.lineno else ''}{error.msg})"
    except ValueError as error:  # NUL bytes, on some Python 3.11 releases
        problem = f"not valid Python ({error})"
    else:
        return
    raise BotLoadError(f"{spec}: not a bot: {problem}; {WHAT_A_BOT_IS}")


def _check_folder(folder: Path) -> None:
    """A bot folder must hold a manifest that can run here (its files under a submission's rules)."""
    if not (folder / MANIFEST).is_file():
        raise BotLoadError(
            f"{folder}: a bot folder needs an {MANIFEST} saying how to run it; {WHAT_A_BOT_IS}"
        )
    try:
        choose_entry(read_submission(folder, skip_hidden=True), None)
    except SubmissionError as error:
        raise BotLoadError(f"{folder}: {error}") from None


def load_bot(game: str, spec: str) -> Bot[Any, Any]:
    """A fresh bot instance from ``builtin:NAME`` or the path of a Python file defining one Bot class."""
    check_spec(game, spec)
    if Path(spec).is_dir():
        raise BotLoadError(f"{spec}: a bot with a manifest runs as its own process, not in the arena's")
    if is_builtin(spec):
        bot_class = builtin_class(game, spec.removeprefix("builtin:"))
    else:
        bot_class = _bot_class_in_file(Path(spec))
    bot: Bot[Any, Any] = bot_class()
    return bot


def builtin_class(game: str, name: str) -> type[Bot[Any, Any]]:
    """The class of ``game``'s built-in bot ``name``, from the game's folder."""
    engine = get_game(game)
    module_name, _, class_name = engine.builtin_bots[name].partition(":")
    module = importlib.import_module(f"{engine.package}.{module_name}")
    bot_class: type[Bot[Any, Any]] = getattr(module, class_name)
    return bot_class


def _bot_class_in_file(path: Path) -> type[Bot[Any, Any]]:
    module_name = f"arena_bot_{abs(hash(path.resolve()))}"
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise BotLoadError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    # Its folder's modules and its vendor/ importable, as the launcher makes them for a bot process.
    sys.path[0:0] = [folder for folder in vendored(str(path.parent)) if folder not in sys.path]
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
