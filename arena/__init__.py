"""Card Arena: a bot-tournament platform for three card games."""

__version__ = "0.1.0"
