"""Two face-up coasters of one colour read as one type: the better explained one keeps it, the
other is read again as a type its colour has not shown where one explains it, and is named in
a warning where none does. In a five-player round, a face-up coaster read as a type the round
takes out is read again as a type in play, its colour told again."""

from __future__ import annotations

import numpy as np
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.detect import CanvasView
from vision.identify import IdentifiedItem, render
from vision.owned_types import coasters_in_play, one_coaster_per_type, type_conflicts
from vision.plane import ItemPose

PX_PER_MM = 1.6
ORIGIN_PX = (40.0, 40.0)


def _view(catalogue, items: list[Placed]) -> CanvasView:
    """The scene rendered straight from above (canvas px = (table mm - origin) * px per mm)."""
    homography = table_homography(PX_PER_MM, origin_px=ORIGIN_PX)
    image = render_scene(catalogue, items, homography, (460, 300))
    origin = (-ORIGIN_PX[0] / PX_PER_MM, -ORIGIN_PX[1] / PX_PER_MM)
    return CanvasView(image, origin, PX_PER_MM)


def _read(catalogue, view: CanvasView, type_name: str, color: str, where: Placed):
    """A face-up ``type_name`` coaster of ``color`` read at ``where``'s pose."""
    pose = ItemPose(where.center_mm, where.angle_rad)
    coaster = side(catalogue, "coaster", type_name)
    rendering = render(art_library(catalogue), view, coaster, color, pose)
    return IdentifiedItem(coaster, color, pose, rendering, np.ones(3), 0.0, 1.0, np.zeros((0, 2)))


def test_a_beer_coaster_read_as_its_colours_double_is_read_again_as_a_beer(catalogue):
    double = Placed(side(catalogue, "coaster", "double"), "blue", (80.0, 90.0), 0.35)
    beer = Placed(side(catalogue, "coaster", "beer"), "blue", (200.0, 90.0), 1.1)
    view = _view(catalogue, [double, beer])
    items = [
        _read(catalogue, view, "double", "blue", beer),
        _read(catalogue, view, "double", "blue", double),
    ]
    out = one_coaster_per_type(art_library(catalogue), view, items, [0, 1])
    assert out[1] is items[1]
    assert (out[0].side, out[0].color) == (beer.side, "blue")
    assert np.hypot(*np.subtract(out[0].pose.center_mm, beer.center_mm)) < 1.5
    assert abs(np.rad2deg(out[0].pose.angle_rad - beer.angle_rad)) < 3.0


def test_a_second_reading_nothing_explains_stays_and_is_named(catalogue):
    double = Placed(side(catalogue, "coaster", "double"), "blue", (80.0, 90.0), 0.35)
    bare = Placed(double.side, "blue", (200.0, 90.0), 1.1)
    view = _view(catalogue, [double])
    items = [
        _read(catalogue, view, "double", "blue", double),
        _read(catalogue, view, "double", "blue", bare),
    ]
    out = one_coaster_per_type(art_library(catalogue), view, items, [0, 1])
    assert all(a is b for a, b in zip(out, items, strict=True))
    assert type_conflicts(out) == [
        "items 0, 1 are all read as the blue double coaster, of which a player owns one: "
        "check them in the photo"
    ]


def test_coasters_of_one_type_in_two_colours_stay_as_read(catalogue):
    blue = Placed(side(catalogue, "coaster", "double"), "blue", (80.0, 90.0), 0.35)
    red = Placed(blue.side, "red", (200.0, 90.0), 1.1)
    view = _view(catalogue, [blue, red])
    items = [_read(catalogue, view, "double", c.color, c) for c in (blue, red)]
    out = one_coaster_per_type(art_library(catalogue), view, items, [0, 1])
    assert all(a is b for a, b in zip(out, items, strict=True))
    assert type_conflicts(out) == []


def test_a_coaster_read_as_a_type_out_of_play_is_read_again_as_its_own(catalogue):
    triple = Placed(side(catalogue, "coaster", "triple"), "blue", (80.0, 90.0), 0.35)
    beer = Placed(side(catalogue, "coaster", "beer"), "red", (200.0, 90.0), 1.1)
    view = _view(catalogue, [triple, beer])
    items = [
        _read(catalogue, view, "soft", "gray", triple),
        _read(catalogue, view, "beer", "red", beer),
    ]
    out = coasters_in_play(art_library(catalogue), view, items, [0, 1], ("soft",))
    assert out[1] is items[1]
    assert (out[0].side, out[0].color) == (triple.side, "blue")
    assert np.hypot(*np.subtract(out[0].pose.center_mm, triple.center_mm)) < 1.5
    # with every type in play, the same reading stays as read
    assert coasters_in_play(art_library(catalogue), view, items, [0, 1], ()) is items


def test_a_coaster_out_of_play_no_type_in_play_explains_stays_as_read(catalogue):
    soft = Placed(side(catalogue, "coaster", "soft"), "gray", (80.0, 90.0), 0.35)
    view = _view(catalogue, [soft])
    items = [_read(catalogue, view, "soft", "gray", soft)]
    out = coasters_in_play(art_library(catalogue), view, items, [0], ("soft",))
    assert out[0] is items[0]
