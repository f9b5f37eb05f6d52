"""A side's art placed on a rectified view: how much of it shows, and the pose it fits best."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

import vision.art_fit
from vision.art import art_library
from vision.art_fit import (
    MIN_PRINT_PARTIAL,
    art_correlation,
    clear_share,
    ink_arts,
    normalised_correlation,
    refine_pose,
    rim_correlation,
)
from vision.detect import CanvasView
from vision.outline_search import MIN_CORRELATION
from vision.plane import ItemPose

PX_PER_MM = 1.6
ORIGIN_PX = (40.0, 40.0)
#: Where the coaster lies (table mm) and its turn (rad).
COASTER_MM = (100.0, 90.0)
COASTER_TURN = np.deg2rad(20.0)


def _view(
    catalogue, items: list[Placed], table_bgr=(70, 90, 110), blur_mm: float = 0.0
) -> CanvasView:
    """The scene seen straight from above: canvas px = (table mm - origin) * px per mm;
    ``blur_mm``: the camera out of focus (Gaussian sigma, mm on the table)."""
    homography = table_homography(PX_PER_MM, origin_px=ORIGIN_PX)
    image = render_scene(catalogue, items, homography, (400, 360), table_bgr)
    if blur_mm > 0:
        image = cv2.GaussianBlur(image, (0, 0), blur_mm * PX_PER_MM)
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


def test_the_refinement_measures_each_pose_once(catalogue, monkeypatch):
    coaster = _double(catalogue)
    view = _view(catalogue, [coaster])
    arts = ink_arts(art_library(catalogue), coaster.side, PX_PER_MM)
    nothing = np.zeros(view.ink.shape, bool)
    measured: list[tuple[float, float, float]] = []

    def measuring(view, arts, pose, covered, min_clear_share=0.0):
        measured.append((*pose.center_mm, pose.angle_rad))
        return art_correlation(view, arts, pose, covered, min_clear_share)

    monkeypatch.setattr(vision.art_fit, "art_correlation", measuring)
    off = ItemPose((COASTER_MM[0] + 1.2, COASTER_MM[1] - 0.8), COASTER_TURN + np.deg2rad(6.0))
    correlation, _ = refine_pose(view, arts, off, nothing)
    assert correlation > 0.85  # it climbed several steps...
    places = {tuple(np.round(pose, 6)) for pose in measured}
    assert len(measured) > 20
    assert len(places) == len(measured)  # ...and measured no pose twice


def test_a_coaster_far_out_of_focus_is_explained_by_its_art_rim_and_all(catalogue):
    # a pale coaster on a dark table, 4 mm out of focus: its rim blurs into the table, which the
    # art alone does not show; the art blurred over the table explains it, and still tells the
    # coaster's type from the others of its shape at the same pose
    coaster = Placed(side(catalogue, "coaster", "triple"), "gray", COASTER_MM, COASTER_TURN)
    view = _view(catalogue, [coaster], table_bgr=(25, 20, 20), blur_mm=4.0)
    library = art_library(catalogue)
    nothing = np.zeros(view.ink.shape, bool)
    pose = ItemPose(COASTER_MM, COASTER_TURN)
    own = art_correlation(view, ink_arts(library, coaster.side, PX_PER_MM), pose, nothing)
    assert own > 0.8
    for rival in ("three", "double", "soft", "beer"):
        rival_side = side(catalogue, "coaster", rival)
        if rival_side.shape != coaster.side.shape:
            continue
        theirs = art_correlation(view, ink_arts(library, rival_side, PX_PER_MM), pose, nothing)
        assert theirs < own - 0.1, rival
    elsewhere = ItemPose((COASTER_MM[0] + 15.0, COASTER_MM[1]), COASTER_TURN)
    assert (
        art_correlation(view, ink_arts(library, coaster.side, PX_PER_MM), elsewhere, nothing) < 0.6
    )


@pytest.mark.parametrize("disc_bgr", [(120, 110, 110), (60, 150, 200)])
def test_a_plain_disc_out_of_focus_is_no_coaster_however_its_rim_fits(catalogue, disc_bgr):
    # a shadow's round end or a glass's foot: a disc of a coaster's size blurring into a pale
    # table, with no print; the rim alone would explain it, so the print must fit as well
    table_bgr = (215, 205, 200)
    view = _view(catalogue, [], table_bgr=table_bgr)
    image = view.image_bgr.copy()
    centre = np.round(view.table_to_canvas(np.array([COASTER_MM]))[0]).astype(int)
    cv2.circle(image, tuple(int(v) for v in centre), round(42.5 * PX_PER_MM), disc_bgr, -1)
    image = cv2.GaussianBlur(image, (0, 0), 3.0 * PX_PER_MM)
    disc = CanvasView(image, view.origin_mm, PX_PER_MM)
    library = art_library(catalogue)
    nothing = np.zeros(disc.ink.shape, bool)
    pose = ItemPose(COASTER_MM, COASTER_TURN)
    for kind in ("soft", "double", "beer"):
        arts = ink_arts(library, side(catalogue, "coaster", kind), PX_PER_MM)
        assert art_correlation(disc, arts, pose, nothing) < MIN_CORRELATION, kind
    # the same blur over a real coaster of that colour leaves its print to fit
    coaster = Placed(side(catalogue, "coaster", "soft"), "gray", COASTER_MM, COASTER_TURN)
    real = _view(catalogue, [coaster], table_bgr=table_bgr, blur_mm=3.0)
    arts = ink_arts(library, coaster.side, PX_PER_MM)
    assert art_correlation(real, arts, pose, nothing) > 0.8


def test_rim_correlation_fits_the_table_and_keeps_the_arts_sign():
    rng = np.random.default_rng(3)
    art = rng.normal(size=500)
    reach = np.clip(np.linspace(-0.5, 2.0, 500), 0.0, 1.0)
    table = 40.0
    observed = 2.0 * (art * reach + (1 - reach) * table) + 7.0
    assert rim_correlation(observed, art * reach, reach) > 0.999
    assert normalised_correlation(observed, art * reach) < 0.5
    assert rim_correlation(-observed, art * reach, reach) < 0.0
    # a rim with no print: the coverage alone explains it, the art does not
    plain = 2.0 * (1 - reach) * table + 7.0 + rng.normal(scale=0.5, size=500)
    assert rim_correlation(plain, art * reach, reach) < MIN_PRINT_PARTIAL
    flat = np.ones(500)
    assert rim_correlation(observed, art, flat) == pytest.approx(
        normalised_correlation(observed, art)
    )
