"""The game level: seats and colours, rotating start player, rounds, corrections, winners, JSON."""

import json

import pytest
from bp_scenes import coaster, napkin, scene

from games.beer_pretzels.game import BeerPretzelsGame, GameError


def play(game, *rounds):
    for money in rounds:
        game.record_round(money)
    return game


def test_start_player_rotates_clockwise_and_game_ends_after_one_round_each():
    game = BeerPretzelsGame(["blue", "red", "yellow"])
    starts = []
    while not game.finished:
        starts.append(game.start_player)
        game.record_round({"blue": 1})
    assert starts == ["blue", "red", "yellow"]
    assert [r.start_player for r in game.rounds] == starts
    assert [r.number for r in game.rounds] == [1, 2, 3]
    assert game.next_round is None and game.start_player is None
    with pytest.raises(GameError, match="over"):
        game.record_round({"blue": 1})


def test_totals_and_winners_with_ties():
    game = play(
        BeerPretzelsGame(["blue", "red", "yellow"]),
        {"blue": 7, "red": 10, "yellow": 6},
        {"blue": 8, "red": 0, "yellow": 12},
        {"blue": 5, "red": 10},
    )
    assert game.totals == {"blue": 20, "red": 20, "yellow": 18}
    assert game.finished and game.winners == ["blue", "red"]


def test_leaders_before_the_end():
    game = play(BeerPretzelsGame(["gray", "green"]), {"green": 3})
    assert not game.finished and game.winners == ["green"]
    assert game.to_dict()["winners"] == []


def test_hand_correction_keeps_the_original_and_counts():
    game = play(BeerPretzelsGame(["blue", "red"]), {"blue": 7, "red": 10}, {"blue": 2})
    record = game.correct_round(1, {"red": 5})
    assert record.money == {"blue": 7, "red": 10}
    assert record.corrected == {"blue": 7, "red": 5}
    assert game.totals == {"blue": 9, "red": 5}
    game.correct_round(1, {"blue": 0})  # a second correction builds on the first
    assert game.rounds[0].corrected == {"blue": 0, "red": 5}
    assert game.rounds[0].money == {"blue": 7, "red": 10}


@pytest.mark.parametrize(
    ("players", "message"),
    [
        (["red"], "2 to 5"),
        (["red", "yellow", "green", "blue", "gray", "red"], "2 to 5"),
        (["red", "red"], "different colour"),
        (["red", "pink"], "unknown colour"),
        ("red", "list of colours"),
    ],
)
def test_bad_players(players, message):
    with pytest.raises(GameError, match=message):
        BeerPretzelsGame(players)


@pytest.mark.parametrize(
    ("money", "message"),
    [
        ({"green": 3}, "not in this game"),
        ({"red": -1}, "from 0 to 28"),
        ({"red": 29}, "from 0 to 28"),
        ({"red": 2.5}, "whole number"),
        ({"red": True}, "whole number"),
        ([("red", 3)], "map colours"),
    ],
)
def test_bad_money(money, message):
    game = BeerPretzelsGame(["red", "blue"])
    with pytest.raises(GameError, match=message):
        game.record_round(money)
    assert game.rounds == []


def test_bad_corrections():
    game = play(BeerPretzelsGame(["red", "blue"]), {"red": 3})
    with pytest.raises(GameError, match="no round 2"):
        game.correct_round(2, {"red": 1})
    with pytest.raises(GameError, match="not in this game"):
        game.correct_round(1, {"gray": 1})
    assert game.rounds[0].corrected is None


def test_five_players_drop_the_soft_coasters():
    five = ["red", "yellow", "green", "blue", "gray"]
    game = BeerPretzelsGame(five)
    assert game.removed_types == ("soft",) and game.max_round_money == 20
    result, record = game.play_round(
        scene(coaster("red", "soft", 0, 0, 0), coaster("blue", "three", 150, 0, 1))
    )
    assert record.money == {"red": 0, "yellow": 0, "green": 0, "blue": 3, "gray": 0}
    assert any("soft" in w for w in record.warnings)
    assert not result.items[0].counted
    with pytest.raises(GameError, match="from 0 to 20"):
        game.record_round({"red": 24})
    assert BeerPretzelsGame(five[:4]).max_round_money == 28


def test_play_round_scores_the_scene_with_the_seated_players():
    game = BeerPretzelsGame(["yellow", "gray"])
    result, record = game.play_round(
        scene(coaster("gray", "double", 0, 0, 0), napkin("yellow", 200, 0, 1))
    )
    assert list(result.players) == ["yellow", "gray"]
    assert record.money == {"yellow": 0, "gray": 3}
    assert record.start_player == "yellow"


def test_json_round_trip():
    game = play(BeerPretzelsGame(["blue", "red", "yellow"]), {"blue": 7, "red": 10}, {"red": 4})
    game.correct_round(2, {"yellow": 3})
    doc = json.loads(json.dumps(game.to_dict()))
    restored = BeerPretzelsGame.from_dict(doc)
    assert restored.to_dict() == game.to_dict()
    assert restored.rounds == game.rounds
    assert restored.start_player == "yellow"
    restored.record_round({"yellow": 2})
    assert restored.finished and restored.winners == ["red"]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(game="nachbarn"), "not a saved"),
        (lambda d: d.update(version=99), "version"),
        (lambda d: d["rounds"][0].update(start_player="red"), "seat order"),
        (lambda d: d["rounds"][0].update(money={"pink": 1}), "not in this game"),
        (lambda d: d.update(players=["blue", "blue"]), "different colour"),
        (lambda d: d.update(rounds="x"), "'rounds'"),
    ],
)
def test_from_dict_rejects_bad_documents(mutate, message):
    doc = play(BeerPretzelsGame(["blue", "red"]), {"blue": 1}).to_dict()
    mutate(doc)
    with pytest.raises(GameError, match=message):
        BeerPretzelsGame.from_dict(doc)
