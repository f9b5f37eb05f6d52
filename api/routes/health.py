"""Liveness (``/healthz``) and readiness (``/readyz``)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from api.core.db import schema_is_current
from api.deps import Services, ServicesDep
from api.schemas import Health, Readiness, ReadinessCheck, ScoringLoad

router = APIRouter(tags=["health"])


@router.get("/healthz", summary="the process is alive")
def healthz() -> Health:
    return Health()


def _check_database(services: Services) -> ReadinessCheck:
    try:
        services.db.ping()
        if not schema_is_current(services.db.engine):
            return ReadinessCheck(ok=False, detail="schema is not at the newest migration")
    except Exception as exc:  # any driver error means "not reachable"
        return ReadinessCheck(ok=False, detail=f"database unreachable: {type(exc).__name__}")
    return ReadinessCheck(ok=True, detail=services.db.engine.url.get_backend_name())


def _check_catalogues(services: Services) -> ReadinessCheck:
    return ReadinessCheck(ok=True, detail="component sets: " + ", ".join(services.catalogues.names))


def _check_scorer(services: Services) -> ReadinessCheck:
    state = services.scorer_state
    if state.error is not None:
        return ReadinessCheck(ok=False, detail=f"scorer failed to load: {state.error}")
    if not state.loaded:
        return ReadinessCheck(ok=False, detail="scorer still loading")
    return ReadinessCheck(ok=True, detail="art library loaded")


@router.get(
    "/readyz",
    summary="the database is reachable and the scorer's model and catalogue are loaded",
    responses={503: {"model": Readiness, "description": "not ready"}},
)
def readyz(services: ServicesDep, response: Response) -> Readiness:
    checks = {
        "database": _check_database(services),
        "catalogue": _check_catalogues(services),
        "scorer": _check_scorer(services),
    }
    ready = all(check.ok for check in checks.values())
    if not ready:
        response.status_code = 503
    pool = services.pool
    return Readiness(
        status="ready" if ready else "not_ready",
        checks=checks,
        scoring=ScoringLoad(
            admitted=pool.admitted, capacity=pool.capacity, concurrent=pool.max_concurrent
        ),
    )
