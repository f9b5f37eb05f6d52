"""Searching a refined view again only where the items found leave the segmenter's unexplained."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

import vision.unexplained
from vision.detect import detect_sides, rectify
from vision.plane import TablePlane
from vision.segmentation import ItemRegion
from vision.unexplained import (
    UNEXPLAINED_MIN_WIDTH_MM,
    UNEXPLAINED_REACH_MM,
    finds_new_sides,
    footprints_in_view,
    unexplained_region,
)


@pytest.fixture(scope="module")
def searched(small_table, small_table_searched):
    """The small table's view, plane, library, every side found there, and the segmenter's
    item region as it sees the items (their outlines at a quarter of the working size)."""
    image, homography, items = small_table
    h, w = image.shape[:2]
    view, plane = small_table_searched.view, small_table_searched.plane
    library, found = small_table_searched.library, small_table_searched.sides
    assert len(found) == len(items)
    seen = np.zeros((h // 4, w // 4), np.uint8)
    for item in items:
        outline = np.asarray(item.side.shape.polygon_mm.exterior.coords)[:-1]
        c, s = np.cos(item.angle_rad), np.sin(item.angle_rad)
        table = outline @ np.array([[c, s], [-s, c]]) + item.center_mm
        px = cv2.perspectiveTransform(table[None], homography)[0]
        cv2.fillPoly(seen, [np.round((px + 0.5) / 4 - 0.5).astype(np.int32)], 1)
    region = ItemRegion(seen.astype(np.float32), (0.25, 0.25))
    return view, plane, library, found, region


def _recording_searches(monkeypatch) -> list[np.ndarray]:
    searched_where: list[np.ndarray] = []
    detect = vision.unexplained.detect_sides

    def recording(view, library, where=None):
        searched_where.append(where)
        return detect(view, library, where)

    monkeypatch.setattr(vision.unexplained, "detect_sides", recording)
    return searched_where


def test_a_view_whose_items_are_all_found_is_not_searched_again(searched, monkeypatch) -> None:
    view, plane, library, found, region = searched
    searches = _recording_searches(monkeypatch)
    assert not finds_new_sides(view, plane, plane, found, region, library)
    assert searches == []  # the items found explain every part of the region wide enough


def test_an_item_not_found_is_looked_for_where_it_lies_alone(searched, monkeypatch) -> None:
    view, plane, library, found, region = searched
    searches = _recording_searches(monkeypatch)
    beer = next(d for d in found if d.side.type_name == "beer")
    others = [d for d in found if d is not beer]
    assert finds_new_sides(view, plane, plane, others, region, library)
    (where,) = searches
    at = np.round(view.table_to_canvas(np.array([d.pose.center_mm for d in found]))).astype(int)
    assert [bool(where[y, x]) for x, y in at] == [d is beer for d in found]
    assert (where > 0).mean() < 0.1


def test_a_side_found_again_where_one_was_is_not_new(searched, monkeypatch) -> None:
    """The unexplained region may hold part of a side found already (a napkin's margin the
    segmenter sees wider): finding that side there again calls for no full search."""
    view, plane, library, found, region = searched
    beer = next(d for d in found if d.side.type_name == "beer")
    monkeypatch.setattr(vision.unexplained, "unexplained_region", lambda seen, fp, ppm: seen)
    monkeypatch.setattr(vision.unexplained, "MAX_UNEXPLAINED_SHARE", 1.1)
    monkeypatch.setattr(vision.unexplained, "detect_sides", lambda view, lib, where: [beer])
    assert not finds_new_sides(view, plane, plane, found, region, library)
    others = [d for d in found if d is not beer]
    assert finds_new_sides(view, plane, plane, others, region, library)


def test_a_region_left_mostly_unexplained_is_searched_in_full_at_once(
    searched, monkeypatch
) -> None:
    view, plane, library, _, region = searched
    searches = _recording_searches(monkeypatch)
    assert finds_new_sides(view, plane, plane, [], region, library)
    assert searches == []


def test_footprints_follow_the_image_from_one_plane_to_another(small_table, searched) -> None:
    """A side's footprint is drawn where the image shows it, whichever table frame its pose is
    in: sides found on a plane whose frame is shifted and turned have the footprints of those
    found on the view rectified with it."""
    image = small_table[0]
    _, plane, library, found, _ = searched
    turn, shift = np.deg2rad(30.0), np.array([40.0, -25.0])
    c, s = np.cos(turn), np.sin(turn)
    frame = np.array([[c, -s, shift[0]], [s, c, shift[1]], [0.0, 0.0, 1.0]])
    other = TablePlane(plane.table_to_undistorted @ frame, 0.0, 0.0, plane.image_size_px)
    other_view = rectify(image, other)
    moved = footprints_in_view(other_view, other, plane, found) > 0
    direct = footprints_in_view(other_view, other, other, detect_sides(other_view, library)) > 0
    assert 0.05 < moved.mean() < 0.6
    assert (moved & direct).sum() / (moved | direct).sum() > 0.97


def test_thin_bands_left_by_the_items_found_are_not_searched() -> None:
    """At 2 px per mm: a 10 mm band around a found item is dropped; a 40 mm patch is kept,
    grown by the reach."""
    px_per_mm = 2.0
    region = np.zeros((400, 400), np.uint8)
    footprints = np.zeros_like(region)
    region[40:200, 40:200] = 255
    footprints[60:180, 60:180] = 255  # leaves a 10 mm band all around
    region[260:340, 260:340] = 255  # an 40 mm patch nothing explains
    where = unexplained_region(region, footprints, px_per_mm)
    assert where.dtype == np.uint8 and set(np.unique(where)) <= {0, 255}
    assert not where[40:200, 40:200].any()
    reach = round(UNEXPLAINED_REACH_MM * px_per_mm)
    ys, xs = np.nonzero(where)
    assert ys.min() == pytest.approx(260 - reach, abs=1)
    assert xs.max() == pytest.approx(339 + reach, abs=1)
    assert UNEXPLAINED_MIN_WIDTH_MM * px_per_mm > 20  # the band is narrower than a findable part
