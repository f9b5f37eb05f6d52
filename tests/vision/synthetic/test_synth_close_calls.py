import pytest

from games.beer_pretzels.catalogue import load_catalogue
from games.beer_pretzels.scene import PlacedItem, Scene
from games.beer_pretzels.scoring import score_scene
from vision.synthetic.close_calls import (
    clear_of_close_calls,
    closest_icon_call_mm,
    counting_stands,
)

CATALOGUE = load_catalogue()
HALF_CORD_MM = CATALOGUE.string.thickness_mm / 2
LOOP_MM = ((0.0, 0.0), (400.0, 0.0), (400.0, 400.0), (0.0, 400.0))  # the string's centre line
HALF_COASTER_MM = 42.5  # a "three" coaster: a rounded square 85 mm wide
PLAYERS = ["red", "blue"]


def _coaster(color: str, x: float, y: float, z: int) -> PlacedItem:
    return PlacedItem("coaster", color, "three", "up", (x, y), 0.0, z)


def _outside_at_gap(gap_mm: float) -> Scene:
    """A red coaster inside the loop, a blue one outside whose edge is ``gap_mm`` from the
    string's outer edge (x = -3 mm)."""
    blue_x = -HALF_CORD_MM - gap_mm - HALF_COASTER_MM
    return Scene(LOOP_MM, (_coaster("red", 200, 200, 0), _coaster("blue", blue_x, 200, 1)))


def _scored(scene: Scene):
    return score_scene(scene, CATALOGUE, players=PLAYERS)


@pytest.mark.parametrize(
    ("gap_mm", "margin_mm", "stands"),
    [
        (1.2, 1.0, False),  # missed by 0.7 mm: a 1 mm margin would link it
        (1.2, 0.5, True),
        (5.0, 1.0, True),  # a clear miss
        (0.3, 1.0, True),  # a touch is a contact, not a close call
    ],
)
def test_counting_stands_unless_a_near_miss_within_the_margin_would_link(gap_mm, margin_mm, stands):
    scene = _outside_at_gap(gap_mm)
    score = _scored(scene)
    assert score.items[1].counted is (gap_mm <= 0.5)
    assert counting_stands(scene, score, CATALOGUE, PLAYERS, margin_mm) is stands
    assert clear_of_close_calls(scene, score, CATALOGUE, PLAYERS, margin_mm) is stands


def test_the_closest_icon_call_is_the_depth_of_a_sliver_cover():
    # The "three" icon spans x -20..20 mm on its coaster; a napkin above reaches 0.4 mm into it.
    napkin_x = 200 - 20 + 0.4 - 65
    napkin = PlacedItem("napkin", "blue", None, "up", (napkin_x, 200.0), 0.0, 1)
    scene = Scene(LOOP_MM, (_coaster("red", 200, 200, 0), napkin))
    score = _scored(scene)
    assert not score.items[0].icons[0].visible
    assert closest_icon_call_mm(score) == pytest.approx(0.4, abs=0.05)
    assert not clear_of_close_calls(scene, score, CATALOGUE, PLAYERS, 1.0)
    assert clear_of_close_calls(scene, score, CATALOGUE, PLAYERS, 0.3)


def test_no_icon_call_when_nothing_comes_near_an_icon():
    scene = _outside_at_gap(20.0)
    assert closest_icon_call_mm(_scored(scene)) is None
