"""A real ``tablescore serve`` process on a free loopback port, and checks of its answers."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parents[2]
DEVSET = REPO_ROOT.parent / "shared" / "devset"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A ``tablescore serve`` subprocess with its own data folder (SQLite file and photos)."""

    data_dir: Path
    env_overrides: dict[str, str] = field(default_factory=dict)
    port: int = 0
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        return self.data_dir / "server.log"

    def start(self, timeout_s: float = 60.0) -> None:
        self.port = free_port()
        inherited = {k: v for k, v in os.environ.items() if not k.startswith("TABLESCORE_")}
        env = {**inherited, "TABLESCORE_DATA_DIR": str(self.data_dir), **self.env_overrides}
        # Run against another database (e.g. PostgreSQL) instead of a fresh SQLite file.
        database_url = os.environ.get("TABLESCORE_TEST_DATABASE_URL")
        if database_url:
            env["TABLESCORE_DATABASE_URL"] = database_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "api.cli", "serve", "--port", str(self.port)],
            cwd=REPO_ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(self.base_url + "/healthz", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not start: {self.log_path.read_text()[-3000:]}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def client(self, **headers: str) -> httpx.Client:
        """An HTTP client of this server. Its timeout is a ceiling against a hung server, not a
        speed test: with a batch job sharing the machine's two cores, dev set photos 0003 and
        0013 took 36 s and over 120 s to score through the service."""
        return httpx.Client(base_url=self.base_url, timeout=300, headers=headers)


def assert_problem(response: httpx.Response, status: int, code: str | None = None) -> dict:
    """Check that ``response`` is an RFC 9457 problem with ``status`` (and ``code``)."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body = response.json()
    assert body["status"] == status
    assert body["type"].startswith("urn:tablescore:problem:")
    assert body["title"] and body["detail"]
    assert body["request_id"] == response.headers["x-request-id"]
    if code is not None:
        assert body["code"] == code, body
    return body
