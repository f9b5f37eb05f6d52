"""RFC 9457 problem details: every error the service returns is ``application/problem+json``.

A problem carries ``type`` (``urn:tablescore:problem:<code>``), ``title``, ``status``,
``detail``, ``instance`` (the request path) and two extensions: ``code`` (stable, machine
readable) and ``request_id`` (the ``X-Request-ID`` of the request, to find it in the logs).
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from api.core.request_context import current_request_id
from vision.errors import ImageTooLarge, PhotoError

PROBLEM_MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:tablescore:problem:"

logger = logging.getLogger("api.errors")


class Problem(Exception):
    """An error the service answers with a problem response (raise it from anywhere)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        title: str | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.title = title or HTTPStatus(status).phrase
        self.headers = headers or {}
        self.extra = extra or {}


def problem_body(
    status: int,
    code: str,
    detail: str,
    *,
    instance: str | None = None,
    title: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON object of a problem response."""
    body: dict[str, Any] = {
        "type": TYPE_PREFIX + code,
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if instance is not None:
        body["instance"] = instance
    request_id = current_request_id()
    if request_id:
        body["request_id"] = request_id
    body.update(extra or {})
    return body


def problem_response(
    status: int,
    code: str,
    detail: str,
    *,
    instance: str | None = None,
    title: str | None = None,
    headers: dict[str, str] | None = None,
    extra: dict[str, Any] | None = None,
) -> JSONResponse:
    return JSONResponse(
        problem_body(status, code, detail, instance=instance, title=title, extra=extra),
        status_code=status,
        headers=headers,
        media_type=PROBLEM_MEDIA_TYPE,
    )


_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    413: "content_too_large",
    415: "unsupported_media_type",
    422: "unprocessable_content",
    429: "too_many_requests",
    503: "service_unavailable",
}


def _code_for_status(status: int) -> str:
    return _HTTP_CODES.get(status, "client_error" if status < 500 else "server_error")


def _json_safe(value: Any) -> Any:
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return str(value)


async def _on_problem(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Problem)
    return problem_response(
        exc.status,
        exc.code,
        exc.detail,
        instance=request.url.path,
        title=exc.title,
        headers=exc.headers,
        extra=exc.extra,
    )


async def _on_photo_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, PhotoError)
    status = 413 if isinstance(exc, ImageTooLarge) else 422
    return problem_response(
        status, exc.code, exc.message, instance=request.url.path, title="Photo cannot be scored"
    )


async def _on_http_exception(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else HTTPStatus(exc.status_code).phrase
    return problem_response(
        exc.status_code,
        _code_for_status(exc.status_code),
        detail,
        instance=request.url.path,
        headers=dict(exc.headers or {}),
    )


async def _on_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": _json_safe(list(e.get("loc", ()))), "msg": str(e.get("msg", "")), "type": e["type"]}
        for e in exc.errors()
    ]
    summary = (
        "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors[:5])
        or "the request is not valid"
    )
    return problem_response(
        422,
        "validation_error",
        summary,
        instance=request.url.path,
        title="Request validation failed",
        extra={"errors": errors},
    )


async def _on_unexpected(request: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error on %s %s", request.method, request.url.path)
    return problem_response(
        500,
        "internal_error",
        "the server failed to handle this request; quote the request_id when reporting it",
        instance=request.url.path,
    )


def install_problem_handlers(app: FastAPI) -> None:
    """Answer every error of ``app`` with a problem response."""
    app.add_exception_handler(Problem, _on_problem)
    app.add_exception_handler(PhotoError, _on_photo_error)
    app.add_exception_handler(StarletteHTTPException, _on_http_exception)
    app.add_exception_handler(RequestValidationError, _on_validation_error)
    app.add_exception_handler(Exception, _on_unexpected)
