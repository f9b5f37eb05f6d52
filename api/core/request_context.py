"""The current request's id (``X-Request-ID``), available to logging and problem responses."""

from __future__ import annotations

import logging
from contextvars import ContextVar

_request_id: ContextVar[str | None] = ContextVar("request_id", default=None)


def current_request_id() -> str | None:
    return _request_id.get()


def set_request_id(request_id: str | None) -> object:
    """Set the id for the running task; returns a token for :func:`reset_request_id`."""
    return _request_id.set(request_id)


def reset_request_id(token: object) -> None:
    _request_id.reset(token)  # type: ignore[arg-type]


class RequestIdLogFilter(logging.Filter):
    """Adds ``record.request_id`` ("-" outside a request) so formats can print it."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current_request_id() or "-"
        return True
