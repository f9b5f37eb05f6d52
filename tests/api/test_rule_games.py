"""Rule-engine games through the real server: create, read, legal actions, play, refuse
illegal actions, chance draws, advice, access control and the OpenAPI description."""

from __future__ import annotations

import httpx
import pytest
from live_server import assert_problem

BASE = "/v1/games"


def _create(client: httpx.Client, game: str, players: list[str], **body) -> tuple[str, dict]:
    response = client.post(f"{BASE}/{game}", json={"players": players, **body})
    assert response.status_code == 201, response.text
    created = response.json()
    assert response.headers["location"] == f"{BASE}/{game}/{created['game_id']}"
    return created["game_id"], {"X-Edit-Token": created["edit_token"]}


def test_nachbarn_game_played_to_the_end_with_the_adviser(client: httpx.Client):
    game_id, edit = _create(client, "nachbarn", ["Anna", "Ben", "Cem"], seed=7)
    url = f"{BASE}/nachbarn/{game_id}"
    first = client.get(url).json()
    assert first["seed"] == 7 and first["version"] == 1 and not first["terminal"]
    same_seed = client.post(f"{BASE}/nachbarn", json={"players": ["Anna", "Ben", "Cem"], "seed": 7})
    assert same_seed.json()["game"]["state"]["board"] == first["state"]["board"]

    moves = 0
    while True:
        legal = client.get(f"{url}/actions").json()
        if not legal["actions"]:
            break
        advice = client.get(f"{url}/advice", params={"node_budget": 2000})
        assert advice.status_code == 200, advice.text
        assert advice.json()["action"] in legal["actions"]
        assert advice.json()["explanation"]
        played = client.post(
            f"{url}/actions",
            json={"action": advice.json()["action"], "expected_version": legal["version"]},
            headers=edit,
        )
        assert played.status_code == 200, played.text
        assert played.json()["events"][0]["type"] == "take"
        moves += 1
    final = client.get(url).json()
    assert final["terminal"] and final["current_player"] is None
    assert final["version"] == 1 + moves
    totals = [s["total"] for s in final["scores"]]
    own = [s["breakdown"]["own"] for s in final["scores"]]
    assert totals == [own[i] + own[(i + 1) % 3] for i in range(3)]
    assert_problem(client.get(f"{url}/advice"), 409, "illegal_action")


def test_illegal_actions_are_refused_with_the_reason_and_change_nothing(client: httpx.Client):
    game_id, edit = _create(client, "nachbarn", ["Anna", "Ben", "Cem"], seed=1)
    url = f"{BASE}/nachbarn/{game_id}"
    before = client.get(url).json()
    problem = assert_problem(
        client.post(f"{url}/actions", json={"action": {"take": 99}}, headers=edit),
        409,
        "illegal_action",
    )
    assert "not on the board" in problem["detail"]
    assert_problem(
        client.post(
            f"{url}/actions", json={"action": {"take": 0}, "expected_version": 5}, headers=edit
        ),
        409,
        "version_conflict",
    )
    assert client.get(url).json()["state"] == before["state"]
    assert client.get(url).json()["version"] == before["version"]


def test_access_control_and_unknown_games(client: httpx.Client):
    game_id, edit = _create(client, "weinhaendler", ["Anna", "Ben", "Cem"])
    url = f"{BASE}/weinhaendler/{game_id}"
    action = {"action": {"type": "pass"}}
    assert_problem(client.post(f"{url}/actions", json=action), 401, "edit_token_missing")
    assert_problem(
        client.post(f"{url}/actions", json=action, headers={"X-Edit-Token": "x" * 32}),
        403,
        "edit_token_invalid",
    )
    assert_problem(client.get(f"{BASE}/nachbarn/{game_id}"), 404, "game_not_found")
    assert_problem(client.get(f"{BASE}/weinhaendler/nosuchgame"), 404, "game_not_found")
    assert client.get(f"{BASE}/chess/{game_id}").status_code == 422
    assert client.post(f"{url}/actions", json=action, headers=edit).status_code == 200


@pytest.mark.parametrize(
    ("game", "body"),
    [
        ("nachbarn", {"players": ["A", "B"]}),
        ("nachbarn", {"players": ["A", "B", "C"], "options": {"board": [None]}}),
        ("biermann", {"players": ["A", "B", "C"], "options": {"turns": -1}}),
        ("weinhaendler", {"players": ["A", "B", "C"], "options": {"deck": {"cards": []}}}),
        ("weinhaendler", {"players": ["A", "A", "C"]}),
    ],
)
def test_bad_setups_are_422_problems(client: httpx.Client, game: str, body: dict):
    assert_problem(client.post(f"{BASE}/{game}", json=body), 422, "bad_setup")


def test_biermann_referee_with_engine_dice(client: httpx.Client):
    game_id, edit = _create(
        client, "biermann", ["Anna", "Ben", "Cem"], seed=3, options={"turns": 3}
    )
    url = f"{BASE}/biermann/{game_id}"
    assert client.get(url).json()["state"]["expected"]["input"] == "roll"
    assert_problem(client.get(f"{url}/advice"), 404, "no_adviser")
    for _ in range(3):  # the roll-off, reported by the players
        played = client.post(
            f"{url}/actions", json={"action": {"type": "roll", "dice": [2, 5]}}, headers=edit
        )
        assert played.status_code == 200, played.text
    assert played.json()["events"][-1]["type"] == "rolloff_tie"
    assert_problem(
        client.post(
            f"{url}/actions", json={"action": {"type": "roll", "dice": [7, 1]}}, headers=edit
        ),
        409,
        "illegal_action",
    )
    steps = 0
    while not (game := client.get(url).json())["terminal"]:
        if game["current_player"] == "chance":
            response = client.post(f"{url}/chance", headers=edit)
        else:
            legal = client.get(f"{url}/actions").json()["actions"]
            table = [a for a in legal if a["type"] not in ("penalty", "end")]
            response = client.post(f"{url}/actions", json={"action": table[0]}, headers=edit)
        assert response.status_code == 200, response.text
        steps += 1
        assert steps < 400
    assert game["state"]["turns"] == 3
    drunk = sum(s["total"] for s in game["scores"])
    assert drunk == sum(sum(s["breakdown"].values()) for s in game["scores"])
    assert_problem(client.post(f"{url}/chance", headers=edit), 409, "illegal_action")


def test_weinhaendler_advice_is_a_legal_action(client: httpx.Client):
    game_id, _ = _create(client, "weinhaendler", ["Anna", "Ben", "Cem", "Dora"], seed=5)
    url = f"{BASE}/weinhaendler/{game_id}"
    advice = client.get(f"{url}/advice").json()
    assert advice["action"] in client.get(f"{url}/actions").json()["actions"]
    assert advice["exact"] is False


def test_openapi_documents_the_rule_game_routes(client: httpx.Client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/v1/games/{game}",
        "/v1/games/{game}/{game_id}",
        "/v1/games/{game}/{game_id}/actions",
        "/v1/games/{game}/{game_id}/chance",
        "/v1/games/{game}/{game_id}/advice",
    ):
        assert path in paths
    assert "409" in paths["/v1/games/{game}/{game_id}/actions"]["post"]["responses"]
