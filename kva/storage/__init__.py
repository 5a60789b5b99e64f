"""Persistence: SQLAlchemy 2 models, the async engine, Alembic migrations and the queries the
play service needs. Nothing here knows about HTTP or the rules of the game."""
