"""Alembic migrations of the schema, applied at start-up by api.core.db.upgrade_to_head."""
