"""High card, a toy fourth game: proof that a game is its folder alone (tests/games/test_a_fourth_game.py)."""

from .engine import HighCard

GAME = HighCard()
