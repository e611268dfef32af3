"""The living ladder: every validated bot of a game played continuously, one ladder match after
another. ``matchmaking`` picks the next match (pure: who plays whom, chosen by the information a
result would bring, fairly between users); ``standing`` keeps the ladder's matches in a standing
tournament per game; ``feeder`` is the scheduler service's part (ladder matches in the room
tournaments leave); ``record`` moves the ladder of record (``arena.ratings``) as each match lands;
``shape`` is a ladder match's shape (seats, games, duplicate legs), which validation plays too.
"""
