"""Request and response bodies (pydantic) of the HTTP API."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ProblemDetails(BaseModel):
    """An RFC 9457 problem (media type ``application/problem+json``)."""

    model_config = ConfigDict(extra="allow")

    type: str = Field(examples=["urn:tablescore:problem:unreadable_image"])
    title: str
    status: int
    detail: str
    code: str = Field(description="stable machine-readable error code")
    instance: str | None = None
    request_id: str | None = None


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries documenting problem bodies for ``statuses``."""
    return {
        status: {
            "model": ProblemDetails,
            "content": {"application/problem+json": {}},
            "description": "problem details",
        }
        for status in statuses
    }


class Health(BaseModel):
    status: Literal["ok"] = "ok"


class ReadinessCheck(BaseModel):
    ok: bool
    detail: str


class Readiness(BaseModel):
    status: Literal["ready", "not_ready"]
    checks: dict[str, ReadinessCheck]
