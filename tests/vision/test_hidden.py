"""Second detection pass: coasters the first pass missed, found with the plane known."""

from __future__ import annotations

import numpy as np
import pytest

from vision.art import art_library
from vision.detect import coarse_table_plane, detect_sides, rectify
from vision.hidden import covered_mask, find_hidden_coasters
from vision.identify import identify
from vision.plane import TablePlane


@pytest.fixture(scope="module")
def found_table(small_table, catalogue):
    image = small_table[0]
    h, w = image.shape[:2]
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (w, h))
    view = rectify(image, plane)
    items = [
        identify(library, view, d.side, d.pose, d.points_local_mm)
        for d in detect_sides(view, library)
    ]
    return library, view, items


def test_nothing_more_is_found_when_every_item_is_known(found_table) -> None:
    library, view, items = found_table
    assert find_hidden_coasters(view, library, items) == []


@pytest.mark.parametrize("type_name", ["beer", "three"])
def test_a_missed_coaster_is_found_at_its_pose(found_table, type_name) -> None:
    library, view, items = found_table
    missed = next(it for it in items if it.side.type_name == type_name)
    others = [it for it in items if it is not missed]
    found = find_hidden_coasters(view, library, others)
    assert len(found) == 1
    assert found[0].side == missed.side
    assert np.hypot(*np.subtract(found[0].pose.center_mm, missed.pose.center_mm)) < 1.5
    turn = np.angle(np.exp(1j * (found[0].pose.angle_rad - missed.pose.angle_rad)))
    assert abs(turn) < np.deg2rad(2)
    assert found[0].correlation > 0.8


def test_covered_mask_holds_the_items_outlines(found_table) -> None:
    _, view, items = found_table
    covered = covered_mask(view, items)
    for it in items:
        x, y = np.round(view.table_to_canvas(np.array([it.pose.center_mm]))[0]).astype(int)
        assert covered[y, x]
    assert not covered.all()
