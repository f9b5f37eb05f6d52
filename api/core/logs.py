"""Logging set-up: one line per record on stderr, each carrying the request id."""

from __future__ import annotations

from typing import Any


def logging_config(level: str = "info") -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` dict (also given to uvicorn as ``log_config``)."""
    level_name = level.upper()
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "api.core.request_context.RequestIdLogFilter"}},
        "formatters": {
            "line": {
                "format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s",
            }
        },
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stderr",
                "formatter": "line",
                "filters": ["request_id"],
            }
        },
        "loggers": {
            "api": {"handlers": ["stderr"], "level": level_name, "propagate": False},
            "vision": {"handlers": ["stderr"], "level": level_name, "propagate": False},
            "uvicorn": {"handlers": ["stderr"], "level": level_name, "propagate": False},
            "uvicorn.error": {"level": level_name},
            # api.access logs every request with its id; uvicorn's own access line would repeat it.
            "uvicorn.access": {"handlers": [], "level": "WARNING", "propagate": False},
        },
    }
