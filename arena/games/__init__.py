"""Pure game engines: rules only, no I/O, no randomness of their own. See ``base.py``."""
