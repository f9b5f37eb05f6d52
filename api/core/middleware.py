"""Pure ASGI middleware: request ids and access log, the optional API key, the body-size limit."""

from __future__ import annotations

import hmac
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterable

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.core.problems import problem_response
from api.core.request_context import reset_request_id, set_request_id

access_logger = logging.getLogger("api.access")

_REQUEST_ID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


class RequestIdMiddleware:
    """Gives every request an id (the client's valid ``X-Request-ID`` or a new one), echoes it
    in the response and logs one access line per request carrying it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        offered = Headers(scope=scope).get("x-request-id", "")
        request_id = offered if _REQUEST_ID_RE.match(offered) else uuid.uuid4().hex
        token = set_request_id(request_id)
        started = time.perf_counter()
        status = 500

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [(k, v) for k, v in message.get("headers", []) if k != b"x-request-id"]
                headers.append((b"x-request-id", request_id.encode("ascii")))
                message["headers"] = headers
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            access_logger.info(
                "%s %s %d %.1fms",
                scope["method"],
                scope["path"],
                status,
                (time.perf_counter() - started) * 1000,
            )
            reset_request_id(token)


class ApiKeyMiddleware:
    """Refuses every request without the right ``X-API-Key`` (401 problem), except the paths
    ``open_paths`` says are open (health check, the web page and its static files)."""

    def __init__(self, app: ASGIApp, api_key: str, is_open: Callable[[str], bool]) -> None:
        self.app = app
        self._key = api_key.encode("utf-8")
        self._is_open = is_open

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self._is_open(scope["path"]):
            await self.app(scope, receive, send)
            return
        offered = Headers(scope=scope).get("x-api-key", "").encode("utf-8")
        if hmac.compare_digest(offered, self._key):
            await self.app(scope, receive, send)
            return
        code, detail = (
            ("api_key_invalid", "the X-API-Key header is wrong")
            if offered
            else ("api_key_missing", "this service needs an X-API-Key header")
        )
        response = problem_response(
            401, code, detail, instance=scope["path"], headers={"WWW-Authenticate": "X-API-Key"}
        )
        await response(scope, receive, send)


class BodyTooLarge(Exception):
    """Raised by the wrapped ``receive`` once the request body passes the limit."""


class BodySizeLimitMiddleware:
    """Refuses request bodies over ``max_bytes`` with a 413 problem: at once when the declared
    ``Content-Length`` is too large, else as soon as the streamed body passes the limit (the
    application's own answer, if any, is replaced by the 413)."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def _too_large(self, scope: Scope) -> JSONResponse:
        return problem_response(
            413,
            "request_too_large",
            f"the request body is larger than {self.max_bytes} bytes",
            instance=scope["path"],
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._too_large(scope)(scope, receive, send)
            return

        received = 0
        exceeded = False
        response_started = False

        async def counting_receive() -> Message:
            nonlocal received, exceeded
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    exceeded = True
                    raise BodyTooLarge
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal response_started
            if exceeded:
                return
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception as exc:
            if not exceeded or response_started or not _caused_by_body_limit(exc):
                raise
        if exceeded and not response_started:
            await self._too_large(scope)(scope, receive, send)


def _caused_by_body_limit(exc: BaseException) -> bool:
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, BodyTooLarge):
            return True
        nested: Iterable[BaseException] = getattr(current, "exceptions", ())
        pending.extend(nested)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                pending.append(linked)
    return False
