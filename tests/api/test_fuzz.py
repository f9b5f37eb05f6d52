"""Schemathesis fuzzing of every operation in the OpenAPI schema of a real server, with valid
(positive) and schema-violating (negative) inputs: the answer is never a 5xx, and every error
is a problem+json document."""

from __future__ import annotations

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from live_server import Server

schemathesis = pytest.importorskip("schemathesis")
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402

#: Examples per operation and generation mode: small enough for CI's time budget.
MAX_EXAMPLES = 10


def _fuzz(operation, mode: GenerationMode, **fixed) -> None:
    @given(case=operation.as_strategy(mode, **fixed))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    def run(case) -> None:
        response = case.call(timeout=60)
        case.validate_response(response, checks=[not_a_server_error])
        if response.status_code >= 400:
            (content_type,) = response.headers["content-type"]
            assert content_type.startswith("application/problem+json"), (
                f"{case.method} {case.formatted_path} -> {response.status_code} {response.text}"
            )

    run()


def test_no_input_makes_the_server_fail(server: Server) -> None:
    schema = schemathesis.openapi.from_url(f"{server.base_url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    labels = {operation.label for operation in operations}
    assert "POST /v1/beer-pretzels/score" in labels
    assert "POST /v1/beer-pretzels/games/{game_id}/rounds" in labels
    for operation in operations:
        _fuzz(operation, GenerationMode.POSITIVE)
        try:
            _fuzz(operation, GenerationMode.NEGATIVE)
        except Unsatisfiable:
            # An operation without parameters or body has no input that breaks its schema.
            continue


def test_no_input_to_an_existing_game_makes_the_server_fail(server: Server) -> None:
    """The game operations again, on a real game with its edit token, so that fuzzed input gets
    past the id and token checks to the uploads, numbers and correction bodies."""
    players = [{"name": "A", "color": "red"}, {"name": "B", "color": "blue"}]
    created = httpx.post(f"{server.base_url}/v1/beer-pretzels/games", json={"players": players})
    game_id, token = created.json()["game_id"], created.json()["edit_token"]
    schema = schemathesis.openapi.from_url(f"{server.base_url}/openapi.json")
    game_operations = [
        result.ok()
        for result in schema.get_all_operations()
        if "{game_id}" in result.ok().path and result.ok().path.startswith("/v1/beer-pretzels/")
    ]
    assert len(game_operations) == 5
    for operation in game_operations:
        fixed_path = {"game_id": game_id}
        _fuzz(operation, GenerationMode.POSITIVE, path_parameters=fixed_path)
        _fuzz(
            operation,
            GenerationMode.POSITIVE,
            path_parameters=fixed_path,
            headers={"X-Edit-Token": token},
        )
