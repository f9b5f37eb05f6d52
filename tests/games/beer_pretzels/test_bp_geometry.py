"""Placing items on the table: frame conventions, shapes, icons, the boundary region."""

import dataclasses

import numpy as np
import pytest
import shapely
from bp_scenes import SQUARE_LOOP, coaster, napkin

from games.beer_pretzels.catalogue import Shape, load_catalogue
from games.beer_pretzels.geometry import (
    GeometryError,
    boundary_region_mm,
    icon_outlines_mm,
    icon_polygons_mm,
    item_polygon_mm,
    item_polygons_mm,
    local_to_table_mm,
    rounded_shapes_mm,
)
from games.beer_pretzels.scene import PlacedItem

CAT = load_catalogue()


@pytest.mark.parametrize(
    ("angle", "face", "expected"),
    [
        (0, "up", (110, 200)),
        (90, "up", (100, 210)),  # a positive angle turns clockwise on the y-down table
        (180, "up", (90, 200)),
        (0, "down", (90, 200)),  # face-down: the face's +x lies at the back's -x
        (90, "down", (100, 190)),
    ],
)
def test_local_to_table(angle, face, expected):
    item = coaster("red", "three", 100, 200, 0, angle=angle, face=face)
    assert local_to_table_mm(np.array([[10.0, 0.0]]), item)[0] == pytest.approx(expected)


def test_item_polygons_follow_the_catalogue_shapes():
    square = item_polygon_mm(coaster("red", "three", 50, -20, 0, angle=0), CAT)
    assert square.bounds == pytest.approx((7.5, -62.5, 92.5, 22.5))
    turned = item_polygon_mm(coaster("red", "three", 0, 0, 0, angle=45), CAT)
    assert turned.bounds[2] == pytest.approx(CAT.coaster_type("three").shape.half_extent_mm, 0.01)
    cloth = item_polygon_mm(napkin("red", 0, 0, 0), CAT)
    assert cloth.area == pytest.approx(130**2 - (4 - np.pi) * 10**2, rel=0.002)
    batch = item_polygons_mm([coaster("red", "soft", 0, 0, 0), napkin("red", 0, 0, 1)], CAT)
    assert [p.area for p in batch] == pytest.approx([np.pi * 42.5**2, cloth.area], rel=0.002)


def test_icons_only_on_face_up_coasters_and_inside_them():
    item = coaster("blue", "triple", 300, 100, 0, angle=33)
    icons = icon_polygons_mm(item, CAT)
    assert list(icons) == ["p1", "p2", "p3"]
    body = item_polygon_mm(item, CAT)
    for outline in icons.values():
        assert body.buffer(-3.0 + 0.05).contains(outline)  # icons sit >= 3 mm inside the edge
    assert icon_polygons_mm(dataclasses.replace(item, face="down"), CAT) == {}
    assert icon_polygons_mm(napkin("blue", 0, 0, 0), CAT) == {}
    outlines = icon_outlines_mm([napkin("blue", 0, 0, 0), item], CAT)
    assert [(o.item_index, o.icon_id) for o in outlines] == [(1, "p1"), (1, "p2"), (1, "p3")]
    assert outlines[0].vertices_mm == pytest.approx(
        np.asarray(outlines[0].polygon_mm.exterior.coords)[:-1]
    )


def test_icon_rotates_with_its_coaster():
    up = icon_polygons_mm(coaster("gray", "beer", 0, 0, 0), CAT)["p1"].centroid
    turned = icon_polygons_mm(coaster("gray", "beer", 0, 0, 0, angle=90), CAT)["p1"].centroid
    assert (turned.x, turned.y) == pytest.approx((-up.y, up.x), abs=1e-6)


def test_face_down_coaster_without_type_needs_its_back_shape():
    unknown = coaster("red", None, 0, 0, 0, face="down")
    with pytest.raises(GeometryError, match="back_shape"):
        item_polygon_mm(unknown, CAT)
    circle = item_polygon_mm(dataclasses.replace(unknown, back_shape="circle"), CAT)
    assert circle.area == pytest.approx(np.pi * 42.5**2, rel=0.002)
    with pytest.raises(GeometryError, match="hexagon"):
        item_polygon_mm(dataclasses.replace(unknown, back_shape="hexagon"), CAT)


def test_unknown_coaster_type():
    with pytest.raises(GeometryError, match="unknown coaster type"):
        item_polygon_mm(coaster("red", "quad", 0, 0, 0), CAT)


def test_rounded_shapes_are_exact():
    items = [
        coaster("red", "soft", 0, 0, 0),
        coaster("red", "three", 200, 0, 1, angle=30),
        napkin("red", -200, 0, 2, angle=-10),
    ]
    shapes = rounded_shapes_mm(items, CAT)
    assert shapes.core_half_mm == pytest.approx([0.0, 36.5, 55.0])
    assert shapes.radius_mm == pytest.approx([42.5, 6.0, 10.0])
    rng = np.random.default_rng(3)
    points = rng.uniform(-300, 300, size=(400, 2))
    polygons = item_polygons_mm(items, CAT)
    for k, polygon in enumerate(polygons):
        d = shapes.signed_distance_mm(points, np.full(len(points), k))
        inside = shapely.contains_xy(polygon, points[:, 0], points[:, 1])
        outline = shapely.distance(shapely.points(points), polygon.exterior)
        # The 64-gon outline lies within 0.06 mm of the exact shape.
        assert np.where(inside, -outline, outline) == pytest.approx(d, abs=0.06)
    cores = shapes.cores_mm()
    assert cores[0].geom_type == "Point" and cores[1].area == pytest.approx(73.0**2)


def test_boundary_region_adds_half_the_string():
    region = boundary_region_mm(SQUARE_LOOP, 6.0)
    assert region.bounds == pytest.approx((-303, -303, 303, 303))
    bowtie = boundary_region_mm(((0, 0), (100, 100), (100, 0), (0, 100)), 6.0)
    assert bowtie.is_valid and bowtie.area > 0


@pytest.mark.parametrize(
    ("boundary", "message"),
    [
        (((0, 0), (1, 1)), "at least 3"),
        (((0, 0), (1, 1), (2, float("nan"))), "finite"),
        (((0, 0), (1,), (2, 2)), "finite"),
    ],
)
def test_bad_boundaries(boundary, message):
    with pytest.raises(GeometryError, match=message):
        boundary_region_mm(boundary, 6.0)


def test_custom_catalogue_shapes():
    sharp = dataclasses.replace(CAT.coaster_type("three"), shape=Shape("rounded_square", 60.0, 1.0))
    custom = dataclasses.replace(CAT, coaster_types=(sharp,))
    placed = PlacedItem("coaster", "red", "three", "up", (0.0, 0.0), 0.0, 0)
    assert item_polygon_mm(placed, custom).bounds == pytest.approx((-30, -30, 30, 30))
    assert rounded_shapes_mm([placed], custom).core_half_mm == pytest.approx([29.0])
