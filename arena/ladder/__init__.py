"""The living ladder: every validated bot of a game played continuously, one ladder match after
another. ``arena.ladder.matchmaking`` picks the next match (pure: who plays whom, chosen by the
information a result would bring, fairly between users); the scheduler service plays it and the
ladder follows each landing match (``arena.ratings``).
"""
