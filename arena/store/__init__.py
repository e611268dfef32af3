"""The store: users, bots, versions, tournaments, matches and results (SQLAlchemy 2.0)."""
