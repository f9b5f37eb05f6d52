"""A whole Beer & Pretzels game through the real server: three players, three rounds from
devset photos, a correction, access control, and the game surviving a restart."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from live_server import Server, assert_problem

GAMES = "/v1/beer-pretzels/games"
PLAYERS = [
    {"name": "Grete", "color": "gray"},
    {"name": "Rolf", "color": "red"},
    {"name": "Gina", "color": "green"},
]
#: Devset photos of games between gray, red and green, one per round.
ROUND_PHOTOS = ["0014", "0024", "0028"]


def _photo(devset: Path, stem: str) -> dict:
    return {"photo": (f"{stem}.jpg", (devset / f"{stem}.jpg").read_bytes(), "image/jpeg")}


@pytest.fixture
def own_server(tmp_path: Path):
    running = Server(tmp_path / "games")
    running.start()
    yield running
    running.stop()


def test_full_game_with_a_correction_survives_a_restart(own_server: Server, devset: Path):
    with own_server.client() as http:
        created = http.post(GAMES, json={"players": PLAYERS})
        assert created.status_code == 201, created.text
        game_id, token = created.json()["game_id"], created.json()["edit_token"]
        assert created.headers["location"] == f"{GAMES}/{game_id}"
        assert len(game_id) >= 22 and len(token) >= 32
        board = created.json()["scoreboard"]
        assert [p["color"] for p in board["players"]] == ["gray", "red", "green"]
        assert board["next_round"] == {"number": 1, "start_player": "gray"}
        edit = {"X-Edit-Token": token}

        expected_totals = {"gray": 0, "red": 0, "green": 0}
        for number, stem in enumerate(ROUND_PHOTOS, start=1):
            response = http.post(
                f"{GAMES}/{game_id}/rounds", files=_photo(devset, stem), headers=edit
            )
            assert response.status_code == 201, response.text
            detail = response.json()
            played = detail["round"]
            assert played["number"] == number
            assert played["start_player"] == PLAYERS[number - 1]["color"]
            scores = detail["result"]["scores"]
            assert played["money"] == {c: scores.get(c, 0) for c in expected_totals}
            assert played["scored_money"] == played["money"] and not played["corrected"]
            for color in expected_totals:
                expected_totals[color] += played["money"][color]
            assert detail["scoreboard"]["totals"] == expected_totals
            assert http.get(played["annotated_image_url"]).headers["content-type"] == "image/jpeg"

        board = http.get(f"{GAMES}/{game_id}").json()
        assert board["finished"] and board["next_round"] is None
        best = max(expected_totals.values())
        assert board["winners"] == [c for c, v in expected_totals.items() if v == best]
        assert_problem(
            http.post(f"{GAMES}/{game_id}/rounds", files=_photo(devset, "0014"), headers=edit),
            409,
            "game_finished",
        )

        # A person corrects red's money in round 2; the scored result stays beside it.
        round2 = board["rounds"][1]
        fixed = round2["money"]["red"] + 5
        corrected = http.post(
            f"{GAMES}/{game_id}/rounds/2/corrections",
            json={"money": {"red": fixed}, "corrected_by": "Rolf", "note": "mug was visible"},
            headers=edit,
        )
        assert corrected.status_code == 201, corrected.text
        after = corrected.json()["round"]
        assert after["corrected"] and after["money"]["red"] == fixed
        assert after["money"]["gray"] == round2["money"]["gray"]
        assert after["scored_money"] == round2["scored_money"]
        (correction,) = after["corrections"]
        assert correction["corrected_by"] == "Rolf" and correction["note"] == "mug was visible"
        assert correction["created_at"]
        expected_totals["red"] += 5
        board = corrected.json()["scoreboard"]
        assert board["totals"] == expected_totals

        # The rules refuse a colour not in the game and more money than a round can give.
        url = f"{GAMES}/{game_id}/rounds/2/corrections"
        for money in ({"blue": 3}, {"red": 1000}):
            refused = http.post(url, json={"money": money, "corrected_by": "x"}, headers=edit)
            assert_problem(refused, 422, "invalid_correction")
        negative = {"money": {"red": -3}, "corrected_by": "x"}
        assert_problem(http.post(url, json=negative, headers=edit), 422, "validation_error")
        assert http.get(f"{GAMES}/{game_id}").json() == board

    own_server.stop()
    own_server.start()
    with own_server.client() as http:
        again = http.get(f"{GAMES}/{game_id}")
        assert again.status_code == 200
        assert again.json() == board
        rescored = http.post(f"{GAMES}/{game_id}/rounds/1/rescore", headers=edit)
        assert rescored.status_code == 200, rescored.text
        assert rescored.json()["round"]["scored_money"] == board["rounds"][0]["scored_money"]
        assert rescored.json()["round"]["scoring_id"] != board["rounds"][0]["scoring_id"]


def test_changing_a_game_needs_its_edit_token(client: httpx.Client, devset: Path):
    game_id = client.post(GAMES, json={"players": PLAYERS}).json()["game_id"]
    other = client.post(GAMES, json={"players": PLAYERS}).json()
    url = f"{GAMES}/{game_id}/rounds"
    assert_problem(client.post(url, files=_photo(devset, "0014")), 401, "edit_token_missing")
    wrong = {"X-Edit-Token": other["edit_token"]}
    assert_problem(client.post(url, files=_photo(devset, "0014"), headers=wrong), 403)
    correction = {"money": {"red": 1}, "corrected_by": "x"}
    assert_problem(client.post(f"{url}/1/corrections", json=correction, headers=wrong), 403)
    # Reading needs only the id.
    assert client.get(f"{GAMES}/{game_id}").json()["rounds"] == []
    assert_problem(client.get(f"{GAMES}/{game_id}/rounds/1"), 404, "round_not_found")
    assert_problem(client.get(f"{GAMES}/no-such-game"), 404, "game_not_found")


@pytest.mark.parametrize(
    ("players", "code"),
    [
        ([{"name": "A", "color": "red"}, {"name": "B", "color": "purple"}], "invalid_game"),
        ([{"name": "A", "color": "red"}, {"name": "B", "color": "red"}], "invalid_game"),
        ([{"name": "A", "color": "red"}], "invalid_game"),
        ([{"name": " ", "color": "red"}, {"name": "B", "color": "blue"}], "validation_error"),
    ],
    ids=["unknown-colour", "same-colour-twice", "one-player", "blank-name"],
)
def test_bad_games_are_refused(client: httpx.Client, players: list, code: str | None):
    assert_problem(client.post(GAMES, json={"players": players}), 422, code)
