"""Scoring rules on hand-built scenes (table mm, y down): the rulebook's worked example and the
edge cases of touching, covering, chaining and face-down items."""

import json

import pytest
from bp_scenes import (
    COASTER_RADIUS,
    CORD_EDGE,
    NAPKIN_HALF,
    circle_loop,
    coaster,
    napkin,
    scene,
)

from games.beer_pretzels.scene import PlacedItem, Scene
from games.beer_pretzels.scoring import SceneError, coins_for, score_scene


def worked_example() -> Scene:
    """The rulebook's 3-player example: Blue $7, Red $10 (doubled), Yellow $6 (doubled).

    Loop: a circle of radius 400 mm around the origin.
    """
    return scene(
        # Blue: three $3 + double $2 + $1 + beer coaster's $1; the mug is under the blue napkin.
        coaster("blue", "three", -250, -200, 0),
        coaster("blue", "double", -250, 0, 1),
        coaster("blue", "beer", -250, 200, 2),
        coaster("blue", "triple", -900, -300, 3),  # far outside, unlinked
        coaster("blue", "soft", -900, 300, 4),  # far outside, unlinked
        # Red: double's $2 (its $1 under the red napkin), mug visible (the beer coaster's $1 is
        # under the red napkin too), three $3 outside the loop, counted through a chain
        # (yellow napkin across the cord -> red soft -> red three; the red soft's $4 lies under
        # the red three).
        coaster("red", "double", 0, -200, 5),
        coaster("red", "beer", 102, -120, 6, angle=180),
        coaster("red", "soft", 515, 0, 7),
        coaster("red", "three", 565, 0, 8),
        coaster("red", "triple", 900, -300, 9),  # far outside, unlinked
        # Yellow: double $2 + $1, mug visible (beer coaster's $1 under the yellow napkin); the
        # soft $4 lies outside the loop, touching nothing; the three landed face down.
        coaster("yellow", "double", 200, 200, 10),
        coaster("yellow", "beer", 334.5, 0, 11),
        coaster("yellow", "soft", 0, 520, 12),
        coaster("yellow", "triple", 900, 300, 13),  # far outside, unlinked
        coaster("yellow", "three", -50, 100, 14, face="down"),
        napkin("blue", -330, 200, 15),
        napkin("red", 17, -120, 16),
        napkin("yellow", 420, 0, 17),
        boundary=circle_loop(400.0),
    )


def test_worked_example_money():
    result = score_scene(worked_example())
    assert result.scores == {"blue": 7, "red": 10, "yellow": 6}
    assert sorted(result.players["blue"].pretzels) == [1, 1, 2, 3]
    assert not result.players["blue"].beer_visible
    assert sorted(result.players["red"].pretzels) == [2, 3]
    assert result.players["red"].beer_visible
    assert sorted(result.players["yellow"].pretzels) == [1, 2]
    assert result.players["yellow"].beer_visible
    assert result.players["red"].coins == {5: 2, 1: 0}
    assert result.players["blue"].coins == {5: 1, 1: 2}
    assert result.players["yellow"].coins == {5: 1, 1: 1}
    assert not any(p.uncertain for p in result.players.values())


def test_worked_example_links():
    items = score_scene(worked_example()).items
    red_soft, red_three, yellow_soft, yellow_napkin = items[7], items[8], items[12], items[17]
    assert yellow_napkin.anchored and yellow_napkin.counted
    assert not red_soft.anchored and red_soft.counted
    assert not red_three.anchored and red_three.counted  # only through the chain
    assert [i.visible for i in red_soft.icons] == [False]  # under the red three
    assert not yellow_soft.anchored and not yellow_soft.counted
    assert [i.visible for i in yellow_soft.icons] == [True]  # visible, but it does not count
    assert not items[3].counted and not items[9].counted and not items[13].counted


def test_worked_example_face_down_coaster_warns_and_is_out_of_play():
    result = score_scene(worked_example())
    face_down = result.items[14]
    assert not face_down.counted and not face_down.anchored
    assert all(not i.visible for i in face_down.icons)
    assert len(result.warnings) == 1 and "item 14" in result.warnings[0]
    assert "face down" in result.warnings[0]


def test_to_dict_is_contract_shaped_json():
    doc = json.loads(json.dumps(score_scene(worked_example()).to_dict()))
    assert doc["scores"] == {"blue": 7, "red": 10, "yellow": 6}
    assert doc["players"]["red"] == {
        "money": 10,
        "pretzels": [2, 3],
        "beer_visible": True,
        "coins": {"5": 2, "1": 0},
        "uncertain": False,
    }
    assert len(doc["items"]) == 18
    red_beer = doc["items"][6]
    assert {k: red_beer[k] for k in ("kind", "color", "type", "face", "z")} == {
        "kind": "coaster",
        "color": "red",
        "type": "beer",
        "face": "up",
        "z": 6,
    }
    assert [(i["id"], i["kind"], i["value"], i["visible"]) for i in red_beer["icons"]] == [
        ("beer", "beer", None, True),
        ("p1", "pretzel", 1, False),
    ]
    assert doc["items"][14]["type"] is None  # a face-down coaster does not show its type
    assert doc["items"][17]["type"] is None and doc["items"][17]["icons"] == []


# --- touching the string ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gap_mm", "anchored", "uncertain"),
    [
        (0.0, True, True),
        (0.4, True, True),
        (0.5, True, True),
        (0.6, False, True),
        (2.4, False, True),
        (2.6, False, False),
        (-1.0, True, True),
        (-2.0, True, False),
    ],
)
def test_coaster_just_outside_the_cord(gap_mm, anchored, uncertain):
    """A coaster outside the loop is anchored iff it comes within 0.5 mm of the cord's edge."""
    x = CORD_EDGE + gap_mm + COASTER_RADIUS
    result = score_scene(scene(coaster("red", "three", x, 0, 0)))
    assert result.items[0].anchored is anchored
    assert result.items[0].counted is anchored
    assert result.scores == {"red": 3 if anchored else 0}
    assert result.items[0].uncertain is uncertain  # hangs on <= 2 mm around the 0.5 mm rule


@pytest.mark.parametrize(("gap_mm", "anchored"), [(0.4, True), (1.4, True), (1.6, False)])
def test_a_measured_scene_may_allow_for_the_cords_error(gap_mm, anchored):
    """With ``cord_touch_mm`` (a scene measured from a photo) the touch gap to the cord is
    wider, decisions near it uncertain; links between items keep the rule's 0.5 mm."""
    x = CORD_EDGE + gap_mm + COASTER_RADIUS
    beside = x + 2 * COASTER_RADIUS + 1.0  # 1 mm from the first coaster: not linked
    result = score_scene(
        scene(coaster("red", "three", x, 0, 0), coaster("red", "soft", beside, 0, 1)),
        cord_touch_mm=1.5,
    )
    assert result.items[0].anchored is anchored and result.items[0].uncertain
    assert result.items[1].counted is False


@pytest.mark.parametrize(("gap_mm", "linked"), [(0.4, True), (1.4, True), (1.6, False)])
def test_a_measured_scene_may_allow_for_the_poses_error_between_items(gap_mm, linked):
    """With ``link_touch_mm`` two items up to that gap apart touch, the decision uncertain;
    the cord keeps its own touch gap."""
    x = CORD_EDGE + COASTER_RADIUS - 10.0  # lies 10 mm over the cord: anchored
    beside = x + 2 * COASTER_RADIUS + gap_mm  # outside the loop, 75 mm and more from the cord
    pair = scene(coaster("red", "three", x, 0, 0), coaster("red", "soft", beside, 0, 1))
    result = score_scene(pair, link_touch_mm=1.5)
    assert result.items[0].counted and not result.items[0].uncertain
    assert result.items[1].counted is linked and result.items[1].uncertain
    assert score_scene(pair).items[1].counted is (gap_mm <= 0.5)  # the rule's 0.5 mm


def test_coaster_touching_only_the_string_from_outside_counts():
    # Its edge lies over the cord (1 mm past the centre line) but nowhere inside the loop.
    x = 300.0 + 1.0 + COASTER_RADIUS
    result = score_scene(scene(coaster("gray", "soft", x, 0, 0)))
    assert result.items[0].anchored and result.scores == {"gray": 4}


def test_far_gap_is_certain_and_deep_inside_is_certain():
    outside = CORD_EDGE + 3.0 + COASTER_RADIUS
    result = score_scene(
        scene(coaster("red", "three", outside, 0, 0), coaster("red", "soft", 0, 0, 1))
    )
    assert [r.counted for r in result.items] == [False, True]
    assert [r.uncertain for r in result.items] == [False, False]
    assert [r.confidence for r in result.items] == [1.0, 1.0]


# --- links between items ------------------------------------------------------------------------


@pytest.mark.parametrize(("gap_mm", "linked"), [(0.0, True), (0.4, True), (0.6, False)])
def test_link_between_coasters(gap_mm, linked):
    """An outside coaster counts through another one iff the gap between them is <= 0.5 mm."""
    inner = CORD_EDGE + COASTER_RADIUS - 5.0  # overlaps the cord by 5 mm: anchored
    outer = inner + 2 * COASTER_RADIUS + gap_mm
    result = score_scene(
        scene(coaster("blue", "beer", inner, 0, 0), coaster("red", "three", outer, 0, 1))
    )
    assert result.items[0].anchored
    assert result.items[1].counted is linked
    assert result.items[1].uncertain
    assert 0.5 <= result.items[1].confidence < 1.0
    assert result.scores["red"] == (3 if linked else 0)


def test_chain_through_napkins():
    """coaster outside <- napkin <- napkin <- coaster on the cord: the far coaster counts."""
    x0 = CORD_EDGE + COASTER_RADIUS - 10.0  # overlaps the cord by 10 mm
    n1 = x0 + COASTER_RADIUS + NAPKIN_HALF - 10.0  # each link overlaps the next by 10 mm
    n2 = n1 + 2 * NAPKIN_HALF - 10.0
    far = n2 + NAPKIN_HALF + COASTER_RADIUS - 10.0
    items = [
        coaster("green", "three", x0, 0, 0),
        napkin("green", n1, 0, 1),
        napkin("blue", n2, 0, 2),
        coaster("blue", "three", far, 0, 3),
    ]
    result = score_scene(scene(*items))
    assert [r.anchored for r in result.items] == [True, False, False, False]
    assert [r.counted for r in result.items] == [True, True, True, True]
    assert result.scores == {"green": 3, "blue": 3}
    # Without the middle napkin the chain breaks.
    broken = score_scene(scene(items[0], items[1], items[3]))
    assert [r.counted for r in broken.items] == [True, True, False]
    assert broken.scores == {"green": 3, "blue": 0}


def test_face_down_napkin_still_links_and_covers():
    x0 = CORD_EDGE + COASTER_RADIUS - 10.0
    bridge = x0 + COASTER_RADIUS + NAPKIN_HALF - 30.0
    far = bridge + NAPKIN_HALF + COASTER_RADIUS - 20.0
    result = score_scene(
        scene(
            coaster("green", "three", x0, 0, 0),
            napkin("red", bridge, 0, 1, face="down"),
            coaster("blue", "soft", far, 0, 2),
        )
    )
    assert result.items[2].counted
    assert not result.items[0].icons[0].visible  # the napkin lies over the green $3
    assert result.scores == {"green": 0, "blue": 4, "red": 0}
    assert result.warnings == []


def test_face_down_coaster_links_nothing_and_covers_nothing():
    x0 = CORD_EDGE + COASTER_RADIUS - 10.0
    bridge = x0 + 2 * COASTER_RADIUS - 30.0
    far = bridge + 2 * COASTER_RADIUS - 30.0
    result = score_scene(
        scene(
            coaster("green", "beer", x0, 0, 0, angle=90),
            coaster("blue", "three", far, 0, 1),
            coaster("red", "triple", bridge, 0, 2, face="down"),
            coaster("gray", "three", 0, 0, 3),
            coaster("gray", "soft", 20, 0, 4, face="down"),
        )
    )
    assert not result.items[1].counted  # the face-down bridge does not link
    assert result.items[3].icons[0].visible  # the face-down soft does not cover the $3
    assert result.scores["gray"] == 3
    assert len(result.warnings) == 2


# --- covering icons -----------------------------------------------------------------------------


def test_icon_covered_by_a_sliver_is_not_visible_but_uncertain():
    # The "three" $3 outline reaches x = +20 mm; a napkin whose left edge is at x = 19 covers 1 mm.
    result = score_scene(
        scene(coaster("red", "three", 0, 0, 0), napkin("blue", 19 + NAPKIN_HALF, 0, 1))
    )
    icon = result.items[0].icons[0]
    assert not icon.visible and icon.uncertain
    assert icon.margin_mm == pytest.approx(1.0, abs=0.05)
    assert result.scores["red"] == 0 and result.players["red"].uncertain


def test_icon_missed_by_a_small_gap_is_visible_but_uncertain():
    result = score_scene(
        scene(coaster("red", "three", 0, 0, 0), napkin("blue", 21.5 + NAPKIN_HALF, 0, 1))
    )
    icon = result.items[0].icons[0]
    assert icon.visible and icon.uncertain
    assert icon.margin_mm == pytest.approx(1.5, abs=0.05)
    assert 0.5 < icon.confidence < 1.0


def test_item_below_never_covers():
    result = score_scene(scene(napkin("blue", 40, 0, 0), coaster("red", "three", 0, 0, 1)))
    assert result.items[1].icons[0].visible and result.scores["red"] == 3


def test_touching_exactly_counts_as_covered_and_uncertain():
    result = score_scene(
        scene(coaster("red", "three", 0, 0, 0), napkin("blue", 20 + NAPKIN_HALF, 0, 1))
    )
    icon = result.items[0].icons[0]
    assert icon.uncertain and icon.confidence == pytest.approx(0.5, abs=0.05)


def test_beer_doubles_only_visible_pretzels():
    beer_only = score_scene(
        scene(coaster("yellow", "beer", 0, 0, 0), napkin("gray", 30.0 + NAPKIN_HALF - 20, 0, 1))
    )
    assert beer_only.players["yellow"].beer_visible
    assert beer_only.scores["yellow"] == 0
    both = score_scene(scene(coaster("yellow", "beer", 0, 0, 0)))
    assert both.scores["yellow"] == 2


def test_foreign_object_covers_with_a_warning():
    glass = ((-5.0, -5.0), (5.0, -5.0), (5.0, 5.0), (-5.0, 5.0))
    result = score_scene(scene(coaster("red", "soft", 0, 0, 0), foreign=[glass]))
    assert not result.items[0].icons[0].visible
    assert result.scores == {"red": 0}
    assert any("not a game item" in w for w in result.warnings)


# --- players, 5-player rule, errors -------------------------------------------------------------


def test_players_default_to_colours_present_in_toss_order():
    result = score_scene(
        scene(coaster("gray", "three", 0, 0, 1), coaster("red", "soft", 150, 0, 0))
    )
    assert list(result.players) == ["red", "gray"]


def test_explicit_players_include_absent_colours_with_zero():
    result = score_scene(scene(coaster("gray", "three", 0, 0, 0)), players=["blue", "gray"])
    assert result.scores == {"blue": 0, "gray": 3}


def test_five_players_soft_coaster_scores_nothing_with_warning():
    five = ["red", "yellow", "green", "blue", "gray"]
    result = score_scene(scene(coaster("red", "soft", 0, 0, 0)), players=five)
    assert result.scores["red"] == 0
    assert any("not used" in w for w in result.warnings)
    four = score_scene(scene(coaster("red", "soft", 0, 0, 0)), players=five[:4])
    assert four.scores["red"] == 4


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: scene(coaster("pink", "three", 0, 0, 0)), "unknown colour"),
        (lambda: scene(coaster("red", "quad", 0, 0, 0)), "unknown coaster type"),
        (lambda: scene(coaster("red", None, 0, 0, 0)), "needs a type"),
        (lambda: scene(coaster("red", "three", 0, 0, 0), napkin("red", 0, 0, 0)), "z 0"),
        (lambda: scene(coaster("red", "three", float("nan"), 0, 0)), "finite"),
        (lambda: scene(PlacedItem("coaster", "red", "three", "up", (1.0,), 0.0, 0)), "finite"),
        (lambda: scene(PlacedItem("coaster", "red", "three", "up", None, 0.0, 0)), "finite"),
        (lambda: scene(PlacedItem("coaster", "red", "three", "up", (0, 0), 0.0, 1.5)), "whole"),
        (lambda: scene(coaster("red", "three", 0, 0, 0), boundary=((0, 0), (1, 1))), "3 points"),
    ],
)
def test_bad_scenes_raise_scene_error(build, message):
    with pytest.raises(SceneError, match=message):
        score_scene(build())


def test_duplicate_players_raise():
    with pytest.raises(SceneError, match="distinct"):
        score_scene(scene(coaster("red", "three", 0, 0, 0)), players=["red", "red"])


@pytest.mark.parametrize(
    ("money", "coins"), [(0, {5: 0, 1: 0}), (4, {5: 0, 1: 4}), (28, {5: 5, 1: 3})]
)
def test_coins_fewest(money, coins):
    assert coins_for(money) == coins
