"""Fixtures: the real service (``tablescore serve``) on a free loopback port."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from live_server import DEVSET, Server


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One open server for the whole session (no API key)."""
    running = Server(tmp_path_factory.mktemp("server"))
    running.start()
    yield running
    running.stop()


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with server.client() as http:
        yield http


@pytest.fixture
def devset() -> Path:
    if not DEVSET.is_dir():
        pytest.skip("shared devset not available")
    return DEVSET


#: The API key of :func:`locked_server`.
API_KEY = "s3cret-key"


@pytest.fixture(scope="session")
def locked_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server closed by an API key (``X-API-Key: s3cret-key``)."""
    running = Server(tmp_path_factory.mktemp("locked"), {"TABLESCORE_API_KEY": API_KEY})
    running.start()
    yield running
    running.stop()
