"""Colour identification and stacking order on a synthetic table with known answers."""

from __future__ import annotations

import numpy as np
import pytest

from vision.art import art_library
from vision.detect import coarse_table_plane, detect_sides, rectify
from vision.identify import identify, light_gains
from vision.occlusion import stacking_order
from vision.plane import TablePlane


def _identified(image, catalogue):
    h, w = image.shape[:2]
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (w, h))
    view = rectify(image, plane)
    detections = detect_sides(view, library)
    items = [identify(library, view, d.side, d.pose, d.points_local_mm) for d in detections]
    return plane, view, items


def _match(plane, items, homography, truth):
    """For each true item, the index of the identified item at its centre."""
    found_px = np.array([plane.table_to_image(np.array([it.pose.center_mm]))[0] for it in items])
    out = []
    for placed in truth:
        p = homography @ [*placed.center_mm, 1]
        out.append(int(np.argmin(np.linalg.norm(found_px - p[:2] / p[2], axis=1))))
    return out


@pytest.fixture(scope="module")
def identified_table(small_table, catalogue):
    return _identified(small_table[0], catalogue)


@pytest.mark.parametrize(
    ("cast", "haze"),
    [(None, 0.0), ((0.75, 0.95, 1.2), 0.0), ((0.7, 0.7, 0.7), 70.0)],
    ids=["neutral light", "coloured light", "washed out"],
)
def test_colours_are_told_under_coloured_light(
    small_table, identified_table, catalogue, cast, haze
) -> None:
    image, homography, truth = small_table
    if cast is None:
        plane, _, items = identified_table
    else:  # per-channel gains, plus light added alike to every channel (haze, glare)
        lit = np.clip(image.astype(np.float32) * np.array(cast) + haze, 0, 255).astype(np.uint8)
        plane, _, items = _identified(lit, catalogue)
    for placed, k in zip(truth, _match(plane, items, homography, truth), strict=True):
        assert items[k].color == placed.color
        assert items[k].side.face is placed.side.face


def test_stacking_order_follows_the_overlaps(small_table, identified_table) -> None:
    _, homography, truth = small_table
    plane, view, items = identified_table
    z = stacking_order(view, items).z
    k = _match(plane, items, homography, truth)
    # truth is bottom first; the overlapping pairs: beer < double, three < double
    assert z[k[1]] < z[k[3]]
    assert z[k[2]] < z[k[3]]
    assert sorted(z) == list(range(len(items)))


def test_the_light_is_measured_on_the_coasters_before_their_colours_are_known(
    small_table, catalogue
) -> None:
    image, _, _ = small_table
    cast = np.array([0.6, 0.85, 1.0])  # B, G, R: a warm light
    lit = np.clip(image.astype(np.float32) * cast, 0, 255).astype(np.uint8)
    h, w = lit.shape[:2]
    library = art_library(catalogue)
    view = rectify(lit, TablePlane(coarse_table_plane(lit, library), 0.0, 0.0, (w, h)))
    gains = light_gains(library, view, detect_sides(view, library))
    assert gains is not None
    np.testing.assert_allclose(gains / gains.max(), cast, atol=0.05)
