"""Liveness, readiness, request ids, problem details and access control on a real server."""

from __future__ import annotations

import socket

import httpx
from live_server import Server, assert_problem


def test_healthz_and_readyz(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200
    body = ready.json()
    assert body["status"] == "ready"
    assert body["checks"]["database"]["ok"] and body["checks"]["catalogue"]["ok"]


def test_request_id_is_echoed_or_made(client: httpx.Client) -> None:
    assert (
        client.get("/healthz", headers={"X-Request-ID": "abc-123"}).headers["x-request-id"]
        == "abc-123"
    )
    made = client.get("/healthz", headers={"X-Request-ID": "bad id with spaces"})
    assert made.headers["x-request-id"] != "bad id with spaces"
    assert len(made.headers["x-request-id"]) == 32


def test_unknown_path_and_method_are_problems(client: httpx.Client) -> None:
    assert_problem(client.get("/v1/nothing-here"), 404, "not_found")
    assert_problem(client.delete("/healthz"), 405, "method_not_allowed")


def test_declared_body_over_the_limit_is_refused_before_it_is_sent(server: Server) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/beer-pretzels/score HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: multipart/form-data; boundary=b\r\n"
            b"Content-Length: 1000000000\r\n\r\n"
        )
        head = sock.recv(65536).decode("latin-1")
    assert head.startswith("HTTP/1.1 413 ")
    assert "application/problem+json" in head


def test_api_key_closes_everything_but_health_and_page(locked_server: Server) -> None:
    with locked_server.client() as http:
        assert http.get("/healthz").status_code == 200
        assert http.get("/").status_code == 200
        assert_problem(http.get("/readyz"), 401, "api_key_missing")
        assert_problem(http.get("/openapi.json"), 401, "api_key_missing")
        assert_problem(http.get("/readyz", headers={"X-API-Key": "wrong"}), 401, "api_key_invalid")
        assert http.get("/readyz", headers={"X-API-Key": "s3cret-key"}).status_code == 200
