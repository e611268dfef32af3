"""Tournaments: scheduling who plays whom, in which seats, with which seeds."""
