"""Colour identification and stacking order on a synthetic table with known answers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.detect import coarse_table_plane, detect_sides, rectify
from vision.identify import identify, light_gains
from vision.occlusion import stacking_order
from vision.plane import ItemPose, TablePlane


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


@pytest.mark.parametrize("face", ["up", "down"])
def test_napkin_colours_are_told_blurred_and_washed_out(catalogue, face) -> None:
    """Napkins out of focus (1.5 mm of blur) under glare (60 levels added to every channel):
    their colour shows only faintly in the thin printed border, yet is told right, and is not
    taken for the palest colour."""
    colors = catalogue.color_names
    items = [
        Placed(side(catalogue, "napkin", None, face), color, (80.0 + 150.0 * k, 80.0), 0.3 * k)
        for k, color in enumerate(colors)
    ]
    homography = table_homography(1.6, origin_px=(20.0, 20.0))
    size = (round(150 * len(colors) * 1.6) + 40, 300)
    image = cv2.GaussianBlur(render_scene(catalogue, items, homography, size), (0, 0), 2.4)
    image = np.clip(image.astype(np.float32) * 0.8 + 60.0, 0, 255).astype(np.uint8)
    library = art_library(catalogue)
    view = rectify(
        image, TablePlane(homography, 0.0, 0.0, size), np.array([0, 0, 150 * len(colors), 160])
    )
    half = items[0].side.shape.size_mm / 2 - 8.0
    grid = np.linspace(-half, half, 7)
    points_local_mm = np.array([(x, y) for x in grid for y in grid])
    for placed in items:
        pose = ItemPose(placed.center_mm, placed.angle_rad)
        assert identify(library, view, placed.side, pose, points_local_mm).color == placed.color


@pytest.mark.parametrize("upper_first", [False, True])
def test_stacking_order_of_items_out_of_focus(catalogue, upper_first) -> None:
    """A green soft coaster lying over a gray triple, the photo 1.5 mm out of focus and hazy:
    the soft coaster's sharp print would explain the blurred overlap worse than the triple's
    plain gray, so the art is compared as blurred as the camera saw each item."""
    triple = Placed(side(catalogue, "coaster", "triple"), "gray", (110.0, 100.0), np.deg2rad(25))
    soft = Placed(side(catalogue, "coaster", "soft"), "green", (185.0, 120.0), np.deg2rad(-10))
    homography = table_homography(1.6, origin_px=(20.0, 20.0))
    size = (520, 380)
    sharp = render_scene(catalogue, [triple, soft], homography, size, (40, 40, 150))
    image = cv2.GaussianBlur(sharp, (0, 0), 2.4).astype(np.float32) * 0.85 + 30.0
    image = np.clip(image, 0, 255).astype(np.uint8)
    library = art_library(catalogue)
    view = rectify(image, TablePlane(homography, 0.0, 0.0, size), np.array([0, 0, 300, 220]))
    grid = np.linspace(-40.0, 40.0, 7)
    points_local_mm = np.array([(x, y) for x in grid for y in grid])
    placed = [soft, triple] if upper_first else [triple, soft]
    items = [
        identify(library, view, p.side, ItemPose(p.center_mm, p.angle_rad), points_local_mm)
        for p in placed
    ]
    assert [it.color for it in items] == [p.color for p in placed]
    assert all(it.focus_blur_mm > 0 for it in items)
    stacking = stacking_order(view, items)
    upper, lower = (0, 1) if upper_first else (1, 0)
    assert stacking.z[upper] > stacking.z[lower]
    assert stacking.pairs[0].confidence > 0.5


def test_a_coaster_keeps_its_colour_under_the_scene_light(catalogue) -> None:
    """A green coaster under a warm light, with red light added (a coloured table's reflection):
    its few neutral pixels alone give it a light under which the gray art fits better; under
    the scene's light (its colour measured on all the coasters) the green art does."""
    placed = Placed(side(catalogue, "coaster", "beer"), "green", (60.0, 60.0), 0.3)
    homography = table_homography(1.6, origin_px=(20.0, 20.0))
    size = (230, 230)
    cast = np.array([0.75, 0.95, 1.2])  # B, G, R
    image = render_scene(catalogue, [placed], homography, size).astype(np.float32)
    image = np.clip(image * cast + np.array([0.0, 20.0, 60.0]), 0, 255).astype(np.uint8)
    library = art_library(catalogue)
    view = rectify(image, TablePlane(homography, 0.0, 0.0, size), np.array([0, 0, 130, 130]))
    half = placed.side.shape.size_mm / 2 - 8.0
    grid = np.linspace(-half, half, 7)
    points_local_mm = np.array([(x, y) for x in grid for y in grid])
    pose = ItemPose(placed.center_mm, placed.angle_rad)

    alone = identify(library, view, placed.side, pose, points_local_mm)
    lit = identify(library, view, placed.side, pose, points_local_mm, light_bgr=cast)

    assert alone.color == "gray"  # the failure the scene light prevents
    assert lit.color == "green"
    np.testing.assert_allclose(lit.gains, alone.gains)  # rendered under its own light
