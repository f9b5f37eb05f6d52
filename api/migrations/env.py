"""Alembic environment: runs on the connection handed over by :func:`api.core.db.upgrade_to_head`,
or on ``sqlalchemy.url`` when Alembic is run by hand."""

from __future__ import annotations

from alembic import context
from sqlalchemy import create_engine

from api.models import Base

target_metadata = Base.metadata


def run_migrations() -> None:
    connection = context.config.attributes.get("connection")
    if connection is not None:
        context.configure(connection=connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = create_engine(context.config.get_main_option("sqlalchemy.url"))
    with engine.begin() as own_connection:
        context.configure(connection=own_connection, target_metadata=target_metadata)
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    context.configure(
        url=context.config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata
    )
    with context.begin_transaction():
        context.run_migrations()
else:
    run_migrations()
