"""Napkins found by the Hough vote of their straight edges (face and plain back)."""

from __future__ import annotations

import cv2
import numpy as np
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.detect import CanvasView
from vision.napkins import border_agreement, find_napkins, fit_border
from vision.plane import ItemPose

PPM = 1.6


def _angle_gap_mod_90(a: float, b: float) -> float:
    d = (a - b) % (np.pi / 2)
    return float(min(d, np.pi / 2 - d))


def test_napkin_backs_and_faces_are_found_with_their_pose(catalogue) -> None:
    truth = [
        Placed(side(catalogue, "napkin", None, "down"), "red", (110.0, 100.0), np.deg2rad(17)),
        Placed(side(catalogue, "napkin", None, "down"), "gray", (300.0, 130.0), np.deg2rad(62)),
        Placed(side(catalogue, "napkin", None, "up"), "yellow", (180.0, 310.0), np.deg2rad(-8)),
    ]
    image = render_scene(
        catalogue, truth, table_homography(PPM, origin_px=(0.0, 0.0)), (640, 680), (90, 70, 50)
    )
    view = CanvasView(image, (0.0, 0.0), PPM)
    found = find_napkins(view, art_library(catalogue), [])
    assert len(found) == len(truth)
    for placed in truth:
        gaps = [np.hypot(*np.subtract(f.pose.center_mm, placed.center_mm)) for f in found]
        best = found[int(np.argmin(gaps))]
        assert min(gaps) < 1.0
        assert _angle_gap_mod_90(best.pose.angle_rad, placed.angle_rad) < np.deg2rad(1.0)


def test_no_napkin_on_a_striped_table(catalogue) -> None:
    image = np.full((500, 600, 3), (60, 90, 130), np.uint8)
    for x in range(0, 600, 23):  # parallel planks: straight edges, no corners
        image[:, x : x + 3] = (40, 60, 90)
    view = CanvasView(image, (0.0, 0.0), PPM)
    assert find_napkins(view, art_library(catalogue), []) == []


def test_border_agreement_tells_a_printed_border_from_wood_grain(catalogue) -> None:
    back = side(catalogue, "napkin", None, "down")
    napkin = Placed(back, "yellow", (120.0, 110.0), np.deg2rad(20))
    rng = np.random.default_rng(7)
    grain = np.cumsum(rng.normal(0, 6, 760)).clip(-40, 40)  # wood: light, streaked along y
    wood = np.empty((760, 760, 3), np.uint8)
    wood[:] = (np.array([120, 170, 205]) + grain[None, :, None]).clip(0, 255)
    image = render_scene(
        catalogue, [napkin], table_homography(PPM, origin_px=(0.0, 0.0)), (760, 760), (0, 0, 0)
    )
    image = np.where(image.sum(axis=2, keepdims=True) > 0, image, wood)
    view = CanvasView(image, (0.0, 0.0), PPM)
    library = art_library(catalogue)
    assert (
        border_agreement(view, library, back, "yellow", ItemPose((120.0, 110.0), napkin.angle_rad))
        > 0.9
    )
    # the same napkin placed on bare wood, or a few mm off its border, does not look printed
    on_wood = ItemPose((340.0, 330.0), np.deg2rad(20))
    off_border = ItemPose((126.0, 110.0), np.deg2rad(20))
    assert border_agreement(view, library, back, "yellow", on_wood) < 0.3
    assert border_agreement(view, library, back, "yellow", off_border) < 0.3


def test_a_napkin_under_a_warm_light_is_paper_once_the_light_is_discounted(catalogue) -> None:
    napkin = Placed(side(catalogue, "napkin", None, "up"), "blue", (120.0, 120.0), np.deg2rad(5))
    image = render_scene(
        catalogue, [napkin], table_homography(PPM, origin_px=(0.0, 0.0)), (420, 420), (90, 140, 110)
    )
    warm = np.array([0.62, 0.85, 1.0])  # B, G, R: white paper looks cream
    lit = np.clip(image.astype(np.float32) * warm, 0, 255).astype(np.uint8)
    view = CanvasView(lit, (0.0, 0.0), PPM)
    library = art_library(catalogue)
    assert find_napkins(view, library, []) == []
    found = find_napkins(view, library, [], light_bgr=warm * 0.9)
    assert len(found) == 1
    assert np.hypot(*np.subtract(found[0].pose.center_mm, napkin.center_mm)) < 1.0


def _wood(size: int, seed: int) -> np.ndarray:
    """A light wood table (BGR), its grain streaked along y."""
    grain = np.cumsum(np.random.default_rng(seed).normal(0, 6, size)).clip(-40, 40)
    wood = np.empty((size, size, 3), np.uint8)
    wood[:] = (np.array([120, 170, 205]) + grain[None, :, None]).clip(0, 255)
    return wood


def _blurred_napkin_view(catalogue, napkin: Placed, blur_mm: float) -> CanvasView:
    image = render_scene(
        catalogue, [napkin], table_homography(PPM, origin_px=(0.0, 0.0)), (420, 420), (0, 0, 0)
    )
    image = np.where(image.sum(axis=2, keepdims=True) > 0, image, _wood(420, 3))
    return CanvasView(cv2.GaussianBlur(image, (0, 0), blur_mm * PPM), (0.0, 0.0), PPM)


def test_the_border_tells_a_blurred_napkin_face_from_its_back(catalogue) -> None:
    library = art_library(catalogue)
    for face in ("up", "down"):
        napkin = Placed(side(catalogue, "napkin", None, face), "green", (130.0, 125.0), 0.3)
        view = _blurred_napkin_view(catalogue, napkin, blur_mm=1.5)
        fit = fit_border(
            view, library, napkin.side, "green", ItemPose(napkin.center_mm, napkin.angle_rad)
        )
        assert fit is not None
        assert fit.side == napkin.side
        assert fit.pose == ItemPose(napkin.center_mm, napkin.angle_rad)  # its border shows there


def test_a_napkin_placed_a_few_mm_off_is_moved_onto_its_border(catalogue) -> None:
    library = art_library(catalogue)
    napkin = Placed(side(catalogue, "napkin", None, "up"), "blue", (130.0, 125.0), 0.3)
    view = _blurred_napkin_view(catalogue, napkin, blur_mm=1.0)
    off = ItemPose((134.0, 121.5), 0.3 + np.deg2rad(2.5))
    assert border_agreement(view, library, napkin.side, "blue", off) < 0.3
    fit = fit_border(view, library, napkin.side, "blue", off)
    assert fit is not None
    assert fit.side == napkin.side
    assert np.hypot(*np.subtract(fit.pose.center_mm, napkin.center_mm)) < 1.0
    assert abs(fit.pose.angle_rad - napkin.angle_rad) < np.deg2rad(1.0)
    assert fit.agreement > 0.8


def test_no_border_is_found_on_bare_wood(catalogue) -> None:
    library = art_library(catalogue)
    view = CanvasView(_wood(420, 5), (0.0, 0.0), PPM)
    back = side(catalogue, "napkin", None, "down")
    for angle in (0.0, 0.4, np.pi / 4):
        assert fit_border(view, library, back, "yellow", ItemPose((130.0, 130.0), angle)) is None


def test_a_coaster_back_lined_up_with_a_napkin_corner_is_not_a_napkin(catalogue) -> None:
    """A square coaster's back repeats the napkin's stripe; a napkin placed on its corner sees
    that stripe along two adjacent sides, but not the paper inside."""
    library = art_library(catalogue)
    back = Placed(side(catalogue, "coaster", "triple", "down"), "green", (150.0, 150.0), 0.2)
    image = render_scene(
        catalogue, [back], table_homography(PPM, origin_px=(0.0, 0.0)), (480, 480), (120, 130, 140)
    )
    view = CanvasView(cv2.GaussianBlur(image, (0, 0), 0.8), (0.0, 0.0), PPM)
    napkin = side(catalogue, "napkin", None, "down")
    reach = napkin.shape.size_mm / 2 - back.side.shape.size_mm / 2  # corners together
    c, s = np.cos(0.2), np.sin(0.2)
    centre = np.array([150.0, 150.0]) + np.array([[c, -s], [s, c]]) @ np.array([reach, reach])
    assert fit_border(view, library, napkin, "green", ItemPose(tuple(centre), 0.2)) is None
