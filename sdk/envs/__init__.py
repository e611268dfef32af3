"""The arena's games as standard training environments, on the very engines the arena runs.

``ArenaEnv`` (``sdk.envs.aec``) is a PettingZoo AEC environment per game, ``SeatEnv``
(``sdk.envs.single``) a Gymnasium environment in which one seat plays against built-in bots or
any callables. Both show a seat what ``sdk.features`` makes of its own observation, the function a
bot in the sandbox calls too. They need the ``train`` extra: ``pip install -e '.[train]'``.
"""
