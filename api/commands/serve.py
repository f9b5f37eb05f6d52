"""``tablescore serve [--host --port --workers]``: run the HTTP service with uvicorn.

Settings come from ``TABLESCORE_*`` environment variables (see :class:`api.core.config.Settings`).
The database schema is upgraded once here, before any worker starts, so that several workers
never race to migrate it.
"""

from __future__ import annotations

import argparse
import logging.config
import sys

import uvicorn

from api.core.config import Settings
from api.core.db import Database, upgrade_to_head
from api.core.logs import logging_config


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve", help="run the HTTP service and the web page (settings: TABLESCORE_* variables)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="TCP port (default 8000)")
    parser.add_argument(
        "--workers", type=int, default=1, help="worker processes (default 1; each has its own pool)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    settings = Settings()
    log_config = logging_config(settings.log_level)
    logging.config.dictConfig(log_config)
    database = Database(settings.resolved_database_url)
    try:
        upgrade_to_head(database.engine)
    finally:
        database.dispose()
    logging.getLogger("api").info(
        "data in %s, database %s",
        settings.data_dir.resolve(),
        database.engine.url.render_as_string(hide_password=True),
    )
    uvicorn.run(
        "api.app:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_config=log_config,
        access_log=False,
        timeout_graceful_shutdown=30,
    )
    return 0
