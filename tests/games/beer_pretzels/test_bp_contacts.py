"""Signed gaps (mm): exact on the round item shapes, estimated on arbitrary polygons."""

import dataclasses

import numpy as np
import pytest
import shapely
from bp_scenes import SQUARE_LOOP, coaster, napkin

from games.beer_pretzels.catalogue import Shape, load_catalogue
from games.beer_pretzels.contacts import (
    item_gaps_mm,
    outline_item_gaps_mm,
    pairs_within_mm,
    region_gaps_mm,
    signed_gaps_mm,
)
from games.beer_pretzels.geometry import (
    boundary_region_mm,
    icon_outlines_mm,
    item_polygons_mm,
    rounded_shapes_mm,
)

CAT = load_catalogue()
INF = np.inf


def gaps_between(items, reach=2.5, catalogue=CAT):
    shapes = rounded_shapes_mm(items, catalogue)
    polygons = item_polygons_mm(items, catalogue)
    i = np.arange(0, len(items), 2)
    return item_gaps_mm(shapes, shapes.cores_mm(), polygons, i, i + 1, reach)


@pytest.mark.parametrize(
    ("dx", "angle", "expected"),
    [
        (85.0 + 0.4, 0, 0.4),
        (85.0, 17, 0.0),  # circles: any angle
        (85.0 - 1.0, 0, -1.0),
        (85.0 + 2.4, 0, 2.4),
        (85.0 + 2.6, 0, INF),
        (85.0 - 2.6, 0, -INF),
        (0.0, 0, -INF),
    ],
)
def test_circle_gaps_exact(dx, angle, expected):
    pair = [coaster("red", "soft", 0, 0, 0, angle=angle), coaster("red", "double", dx, 0, 1)]
    assert gaps_between(pair)[0] == pytest.approx(expected, abs=1e-9)


def test_square_and_napkin_gaps_exact():
    # A square's corner (45 deg) points at a napkin's flat side 0.3 mm away.
    corner = CAT.coaster_type("three").shape.half_extent_mm
    pair = [coaster("red", "three", 0, 0, 0, angle=45), napkin("red", corner + 65 + 0.3, 0, 1)]
    assert gaps_between(pair)[0] == pytest.approx(0.3, abs=1e-9)


def test_region_gaps():
    region = boundary_region_mm(SQUARE_LOOP, 6.0)
    items = [
        coaster("red", "soft", 303 + 42.5 + 0.6, 0, 0),  # just too far
        coaster("red", "soft", 303 + 42.5 - 1.0, 0, 1),  # 1 mm over the cord's edge
        coaster("red", "soft", 0, 0, 2),  # deep inside
        coaster("red", "soft", 900, 0, 3),  # far outside
    ]
    shapes = rounded_shapes_mm(items, CAT)
    polygons = item_polygons_mm(items, CAT)
    gaps = region_gaps_mm(region, shapes, shapes.cores_mm(), polygons, 2.5)
    assert gaps == pytest.approx([0.6, -1.0, -INF, INF], abs=1e-9)


def test_thin_discs_fall_back_to_polygons():
    """Squares with a 1 mm corner radius: touching cores no longer mean a deep overlap."""
    thin = dataclasses.replace(CAT.coaster_type("three"), shape=Shape("rounded_square", 60.0, 1.0))
    custom = dataclasses.replace(CAT, coaster_types=(thin,))
    overlap = [coaster("red", "three", 0, 0, 0), coaster("red", "three", 59.0, 0, 1)]
    deep = [coaster("red", "three", 0, 0, 0), coaster("red", "three", 30.0, 0, 1)]
    gaps = gaps_between([*overlap, *deep], catalogue=custom)
    assert gaps == pytest.approx([-1.0, -INF], abs=0.01)


def test_outline_gaps_measure_icon_vertices():
    three = coaster("red", "three", 0, 0, 0)
    outline = icon_outlines_mm([three], CAT)[0]  # p3 reaches x = +20 mm
    right = outline.vertices_mm[:, 0].max()
    covers = [napkin("blue", right + 65 + 1.5, 0, 1), napkin("blue", right + 65 - 0.8, 0, 2)]
    shapes = rounded_shapes_mm(covers, CAT)
    gaps = outline_item_gaps_mm([outline.vertices_mm], shapes, np.array([0, 0]), np.arange(2), 2.0)
    assert gaps == pytest.approx([1.5, -0.8], abs=1e-9)


def test_signed_gaps_on_polygons():
    a = shapely.box(0, 0, 10, 10)
    pairs = [
        (a, shapely.box(12, 0, 20, 10)),  # 2 mm apart
        (a, shapely.box(9, 2, 20, 8)),  # 1 mm overlap
        (a, shapely.box(2, 2, 7, 8)),  # nested, 2 mm from the edge
    ]
    gaps = signed_gaps_mm([p[0] for p in pairs], [p[1] for p in pairs])
    assert gaps == pytest.approx([2.0, -1.0, -2.0])


def test_pairs_within_reach_by_bounding_box():
    left = [shapely.box(0, 0, 10, 10)]
    right = [shapely.box(11, 0, 20, 10), shapely.box(13, 0, 20, 10), shapely.box(-5, -5, 1, 1)]
    i, j = pairs_within_mm(left, right, 2.0)
    assert sorted(j.tolist()) == [0, 2] and set(i.tolist()) == {0}
    assert [a.size for a in pairs_within_mm([], right, 2.0)] == [0, 0]
