"""A side's art placed on a rectified view: how much of it shows, and the pose it fits best."""

from __future__ import annotations

import numpy as np
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.art_fit import art_correlation, clear_share, ink_arts, refine_pose
from vision.detect import CanvasView
from vision.plane import ItemPose

PX_PER_MM = 1.6
ORIGIN_PX = (40.0, 40.0)
#: Where the coaster lies (table mm) and its turn (rad).
COASTER_MM = (100.0, 90.0)
COASTER_TURN = np.deg2rad(20.0)


def _view(catalogue, items: list[Placed]) -> CanvasView:
    """The scene seen straight from above: canvas px = (table mm - origin) * px per mm."""
    homography = table_homography(PX_PER_MM, origin_px=ORIGIN_PX)
    image = render_scene(catalogue, items, homography, (400, 360))
    return CanvasView(image, (-ORIGIN_PX[0] / PX_PER_MM, -ORIGIN_PX[1] / PX_PER_MM), PX_PER_MM)


def _double(catalogue) -> Placed:
    return Placed(side(catalogue, "coaster", "double"), "green", COASTER_MM, COASTER_TURN)


def test_clear_share_counts_the_art_left_uncovered(catalogue):
    coaster = _double(catalogue)
    view = _view(catalogue, [coaster])
    arts = ink_arts(art_library(catalogue), coaster.side, PX_PER_MM)
    pose = ItemPose(COASTER_MM, COASTER_TURN)
    nothing = np.zeros(view.ink.shape, bool)
    assert clear_share(view, arts, pose, nothing) == 1.0
    left_half = nothing.copy()
    centre_x = round(view.table_to_canvas(np.array([COASTER_MM]))[0, 0])
    left_half[:, :centre_x] = True
    assert 0.45 < clear_share(view, arts, pose, left_half) < 0.55
    assert clear_share(view, arts, ItemPose((2000.0, 2000.0), 0.0), nothing) == 0.0


def test_a_pose_a_little_off_is_refined_onto_the_art(catalogue):
    coaster = _double(catalogue)
    view = _view(catalogue, [coaster])
    arts = ink_arts(art_library(catalogue), coaster.side, PX_PER_MM)
    nothing = np.zeros(view.ink.shape, bool)
    off = ItemPose((COASTER_MM[0] + 1.2, COASTER_MM[1] - 0.8), COASTER_TURN + np.deg2rad(6.0))
    correlation, refined = refine_pose(view, arts, off, nothing)
    assert correlation > art_correlation(view, arts, off, nothing) + 0.1
    assert correlation > 0.85
    assert np.hypot(*np.subtract(refined.center_mm, COASTER_MM)) < 0.7
    assert abs(np.rad2deg(refined.angle_rad - COASTER_TURN)) < 1.6
