"""The phone web page at ``/`` (plain HTML, CSS and JS from :mod:`api.static`)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from api.app_paths import STATIC_DIR

router = APIRouter(include_in_schema=False)


@router.get("/")
def index() -> FileResponse:
    return FileResponse(STATIC_DIR / "index.html", media_type="text/html; charset=utf-8")


@router.get("/favicon.ico")
def favicon() -> Response:
    return Response(status_code=204)
