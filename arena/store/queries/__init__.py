"""The store's reads: what the pages, the scheduler, the ladder and the ratings ask of it, by topic."""
