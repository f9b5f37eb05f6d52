"""One napkin and five coasters per player: colours that break it are re-decided."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.detect import CanvasView
from vision.identify import IdentifiedItem, identify
from vision.ownership import one_of_each
from vision.plane import ItemPose

PPM = 2.0
COLORS = ("red", "yellow", "green", "blue", "gray")


@pytest.fixture(scope="module")
def table(catalogue):
    """(library, view, placed items) of six face-up coasters and two napkins, one drawn per
    (colour, type)."""
    placed = [
        Placed(side(catalogue, "coaster", "triple"), "yellow", (70.0, 70.0), 0.3),
        Placed(side(catalogue, "coaster", "triple"), "green", (190.0, 70.0), -0.5),
        Placed(side(catalogue, "coaster", "soft"), "red", (310.0, 70.0), 1.1),
        Placed(side(catalogue, "coaster", "soft"), "blue", (70.0, 190.0), 2.0),
        Placed(side(catalogue, "coaster", "beer"), "yellow", (190.0, 190.0), 0.0),
        Placed(side(catalogue, "coaster", "double"), "red", (310.0, 190.0), 0.7),
        Placed(side(catalogue, "napkin", None, "up"), "yellow", (90.0, 330.0), 0.2),
        Placed(side(catalogue, "napkin", None, "up"), "green", (260.0, 330.0), -0.3),
    ]
    homography = table_homography(PPM, origin_px=(0.0, 0.0))
    image = render_scene(catalogue, placed, homography, (780, 820), (60, 110, 70))
    return art_library(catalogue), CanvasView(image, (0.0, 0.0), PPM), placed


def _identified(library, view, placed: list[Placed]) -> list[IdentifiedItem]:
    return [
        identify(library, view, p.side, ItemPose(p.center_mm, p.angle_rad), np.zeros((0, 2)))
        for p in placed
    ]


def _read_as(item: IdentifiedItem, excess: dict[str, float]) -> IdentifiedItem:
    """``item`` as if its pixels read ``excess`` (colour -> relative excess error; 0 = best)."""
    best = min(excess, key=excess.get)
    errors = tuple(100.0 * (1.0 + excess.get(c, 2.0)) for c in COLORS)
    return replace(item, color=best, color_errors=errors)


def test_the_items_read_their_drawn_colours_with_evidence(table) -> None:
    library, view, placed = table
    items = _identified(library, view, placed)
    assert [it.color for it in items] == [p.color for p in placed]
    for item in items:
        excess = np.asarray(item.color_errors) / min(item.color_errors) - 1.0
        assert excess.max() > 0.5


def test_two_napkins_reading_one_colour_get_the_near_second_choice(table) -> None:
    library, view, placed = table
    yellow, green = _identified(library, view, placed[6:])
    doubtful = _read_as(green, {"yellow": 0.0, "green": 0.1})
    result = one_of_each(library, view, [yellow, doubtful])
    assert [it.color for it in result] == ["yellow", "green"]
    assert result[1].rendering is not doubtful.rendering  # identified again as green
    assert result[1].color_errors == green.color_errors


@pytest.mark.parametrize(
    ("pair", "excess"),
    [
        (slice(6, 8), {"yellow": 0.0, "green": 0.9}),
        (slice(6, 8), {c: 0.01 * k for k, c in enumerate(COLORS, 1)} | {"yellow": 0.0}),
        (slice(0, 2), {"yellow": 0.0, "green": 0.1}),
    ],
    ids=["a clearly read napkin", "a napkin without colour evidence", "two coasters"],
)
def test_a_conflict_stays_where_it_may_be_another_mistake(table, pair, excess) -> None:
    library, view, placed = table
    yellow, green = _identified(library, view, placed[pair])
    doubtful = _read_as(green, excess)
    result = one_of_each(library, view, [yellow, doubtful])
    assert [it.color for it in result] == ["yellow", "yellow"]


@pytest.mark.parametrize(
    ("soft_shown", "double_of", "expected"),
    [
        (True, None, "blue"),  # its best other colour
        (True, "blue", "red"),  # blue's double is on the table: the best free colour
        (True, ("red", "yellow", "green", "blue"), "blue"),  # none free: the best other one
        (False, None, "gray"),  # no soft coasters: five players are possible
    ],
)
def test_a_lone_fifth_colour_beside_soft_coasters_is_read_again(
    table, catalogue, soft_shown, double_of, expected
) -> None:
    library, view, placed = table
    items = _identified(library, view, placed[:6])
    if not soft_shown:  # the two soft coasters read as "three" coasters instead
        three = side(catalogue, "coaster", "three")
        items[2], items[3] = replace(items[2], side=three), replace(items[3], side=three)
    # the red double reads gray (clearly), and beers of red, green and blue show: every colour
    # but gray shows at least twice, gray once
    items[5] = _read_as(items[5], {"gray": 0.0, "blue": 0.6, "red": 0.8})
    items += [_read_as(items[4], {c: 0.0}) for c in ("red", "green", "blue")]
    for color in (double_of,) if isinstance(double_of, str) else double_of or ():
        items.append(_read_as(items[5], {color: 0.0}))
    result = one_of_each(library, view, items)
    assert result[5].color == expected
    assert [it.color for k, it in enumerate(result) if k != 5] == [
        it.color for k, it in enumerate(items) if k != 5
    ]


@pytest.mark.parametrize(
    ("napkin_of", "expected"),
    [(None, "green"), ("green", "yellow")],
    ids=["its best shown colour", "a free napkin colour"],
)
def test_a_napkin_back_of_a_colour_nobody_shows_is_read_again(
    table, catalogue, napkin_of, expected
) -> None:
    library, view, placed = table
    items = _identified(library, view, placed[:7])  # coasters and the yellow napkin
    back = side(catalogue, "napkin", None, "down")
    # the napkin lies face down and its back reads gray, a colour no face-up item shows
    items[6] = replace(_read_as(items[6], {"gray": 0.0, "green": 0.9, "yellow": 1.2}), side=back)
    if napkin_of is not None:
        items.append(_read_as(_identified(library, view, placed[7:])[0], {napkin_of: 0.0}))
    result = one_of_each(library, view, items)
    assert result[6].color == expected


@pytest.mark.parametrize(
    ("beer_of", "expected"),
    [(None, "red"), ("red", "green")],
    ids=["the best explained free colour", "red's beer is on the table"],
)
def test_a_lone_coaster_without_colour_evidence_takes_a_players_free_colour(
    table, beer_of, expected
) -> None:
    library, view, placed = table
    items = _identified(library, view, placed[:6])  # yellow, green, red and blue coasters
    beer = items.pop(4)
    if beer_of is not None:
        items.append(_read_as(beer, {beer_of: 0.0}))  # clearly read
    # a beer coaster every colour explains within 5%, best as gray, which nothing else shows
    excess = {c: 0.05 for c in COLORS} | {"gray": 0.0, "red": 0.01, "green": 0.02}
    result = one_of_each(library, view, [*items, _read_as(beer, excess)])
    assert result[-1].color == expected
    assert [it.color for it in result[:-1]] == [it.color for it in items]


@pytest.mark.parametrize(
    "excess",
    [
        {c: 0.05 for c in COLORS} | {"yellow": 0.0, "red": 0.01},  # yellow shows elsewhere
        {"gray": 0.0, "red": 0.3, "green": 0.9},  # clearly read (rule 3's case, not five)
    ],
    ids=["its colour shows on other items", "it is clearly read"],
)
def test_a_coaster_keeps_its_colour_unless_weakly_read_and_alone(table, excess) -> None:
    library, view, placed = table
    items = _identified(library, view, placed[:6])
    beer = items.pop(4)
    doubtful = _read_as(beer, excess)
    result = one_of_each(library, view, [*items, doubtful])
    assert result[-1].color == doubtful.color


@pytest.mark.parametrize(
    ("gray_types", "recoloured"),
    [(("soft", "soft"), True), (("soft", "double"), False)],
    ids=["soft coasters only", "a soft and a double"],
)
def test_a_fifth_colour_shown_by_soft_coasters_alone_is_read_again(
    table, catalogue, gray_types, recoloured
) -> None:
    library, view, placed = table
    items = _identified(library, view, placed[:6])  # red and blue soft coasters among them
    items += [_read_as(items[4], {c: 0.0}) for c in ("red", "green", "blue")]  # their beers
    # two false coasters (a coin pile, a sliver of table) read clearly gray
    for type_name in gray_types:
        gray = replace(items[2], side=side(catalogue, "coaster", type_name))
        items.append(_read_as(gray, {"gray": 0.0, "green": 0.6, "red": 0.8}))
    result = one_of_each(library, view, items)
    # re-coloured, each takes its best colour whose soft coaster is still free
    assert [it.color for it in result[-2:]] == (["green", "yellow"] if recoloured else ["gray"] * 2)
    assert [it.color for it in result[:-2]] == [it.color for it in items[:-2]]
