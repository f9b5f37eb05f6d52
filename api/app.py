"""The FastAPI application: :func:`create_app` builds it from a :class:`Settings` object.

Routers live in :mod:`api.routes`, one module per area, each exposing ``router``; the app
includes those named in :data:`ROUTE_MODULES`.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool
from starlette.staticfiles import StaticFiles

from api.app_paths import STATIC_DIR
from api.core.catalogues import CatalogueRegistry
from api.core.config import Settings
from api.core.db import Database, upgrade_to_head
from api.core.middleware import ApiKeyMiddleware, BodySizeLimitMiddleware, RequestIdMiddleware
from api.core.problems import install_problem_handlers
from api.core.scorer import load_scorer
from api.core.scoring_pool import ScoringPool
from api.core.storage import ContentStore
from api.deps import Services

logger = logging.getLogger("api")

#: Modules of :mod:`api.routes` whose ``router`` the app includes, in this order.
ROUTE_MODULES: tuple[str, ...] = ("health", "components", "scoring", "games", "rule_games", "pages")

#: Paths that stay open when an API key closes the service: liveness and the web page's files
#: (they hold no data; the page asks for the key and sends it with its API calls).
OPEN_PATHS = frozenset({"/healthz", "/", "/favicon.ico"})

#: Where the files of the API documentation pages (/docs, /redoc) are served.
DOCS_ASSETS_URL = "/docs-assets"


def is_open_path(path: str) -> bool:
    return path in OPEN_PATHS or path.startswith("/static/")


def build_services(settings: Settings) -> Services:
    return Services(
        settings=settings,
        db=Database(settings.resolved_database_url),
        photos=ContentStore(settings.photos_dir),
        annotated=ContentStore(settings.annotated_dir, suffix=".jpg"),
        pool=ScoringPool(
            settings.max_concurrent_scorings, settings.max_queued_scorings, settings.retry_after_s
        ),
        catalogues=CatalogueRegistry(settings.components_dirs),
    )


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service for ``settings`` (default: read from ``TABLESCORE_*`` variables).

    Start-up upgrades the database schema to the newest migration and loads the scorer's
    reference data in the background (``/readyz`` says when it is loaded); shutdown waits for
    running scorings and closes the database pool.
    """
    settings = settings or Settings()
    services = build_services(settings)

    async def load_scorer_in_background() -> None:
        try:
            await run_in_threadpool(load_scorer, services.catalogues.all)
        except Exception as exc:  # reported by /readyz; scoring requests will fail alike
            services.scorer_state.error = f"{type(exc).__name__}: {exc}"
            logger.exception("loading the scorer failed")
        else:
            services.scorer_state.loaded = True

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(upgrade_to_head, services.db.engine)
        loading = asyncio.create_task(load_scorer_in_background())
        try:
            yield
        finally:
            loading.cancel()
            services.pool.shutdown()
            services.db.dispose()

    # Swagger UI and ReDoc served from the package's own copy of their files: no CDN, so
    # /docs renders on a table far from the internet.
    app = FastAPIOffline(
        static_url=DOCS_ASSETS_URL,
        title="tablescore",
        summary="Score Beer & Pretzels from a phone photo and keep games' scoreboards.",
        version="0.1.0",
        lifespan=lifespan,
    )
    app.state.services = services
    install_problem_handlers(app)
    app.add_middleware(BodySizeLimitMiddleware, max_bytes=settings.max_upload_bytes)
    if settings.api_key is not None:
        app.add_middleware(
            ApiKeyMiddleware,
            api_key=settings.api_key.get_secret_value(),
            is_open=is_open_path,
        )
    app.add_middleware(RequestIdMiddleware)  # outermost: every answer carries the id
    for name in ROUTE_MODULES:
        app.include_router(importlib.import_module(f"api.routes.{name}").router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
    return app
