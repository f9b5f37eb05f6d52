"""Detection of item sides by their art: coarse plane, rectification, similarity poses."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_scenes import Placed, render_scene, side, table_homography

from vision.art import art_library
from vision.detect import coarse_table_plane, detect_sides, rectify
from vision.errors import NoGameFound
from vision.plane import TablePlane


def test_coarse_plane_maps_item_layout(small_table, catalogue) -> None:
    image, homography, items = small_table
    h, w = image.shape[:2]
    g = coarse_table_plane(image, art_library(catalogue))
    plane = TablePlane(g, 0.0, 0.0, (w, h))
    # distances between item centres measured through the found plane are the true ones
    centres_px = np.array(
        [
            (homography @ [*it.center_mm, 1])[:2] / (homography @ [*it.center_mm, 1])[2]
            for it in items
        ]
    )
    found = plane.image_to_table(centres_px)
    true = np.array([it.center_mm for it in items])
    d_found = np.linalg.norm(found[:, None] - found[None], axis=2)
    d_true = np.linalg.norm(true[:, None] - true[None], axis=2)
    assert np.abs(d_found - d_true).max() < 3.0


def test_detect_sides_finds_every_item_with_its_pose(small_table, catalogue) -> None:
    image, homography, items = small_table
    h, w = image.shape[:2]
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (w, h))
    view = rectify(image, plane)
    detections = detect_sides(view, library)
    centres_px = np.array(
        [
            (homography @ [*it.center_mm, 1])[:2] / (homography @ [*it.center_mm, 1])[2]
            for it in items
        ]
    )
    assert len(detections) == len(items)
    found_px = np.array([plane.table_to_image(np.array([d.pose.center_mm]))[0] for d in detections])
    turns = []
    for item, centre_px in zip(items, centres_px, strict=True):
        k = int(np.argmin(np.linalg.norm(found_px - centre_px, axis=1)))
        det = detections[k]
        assert np.hypot(*(found_px[k] - centre_px)) < 2.0
        assert det.side.kind is item.side.kind
        assert det.side.type_name == item.side.type_name
        if det.side.kind.value == "coaster":
            turns.append(det.pose.angle_rad - item.angle_rad)
    # the coarse plane's table frame is turned against the true one, the same for every item
    spread = np.angle(np.exp(1j * (np.array(turns) - turns[0])))
    assert np.abs(spread).max() < np.deg2rad(2)


def test_blank_table_has_no_game(catalogue) -> None:
    image = np.full((600, 800, 3), (60, 90, 120), np.uint8)
    image[::7] = 40  # some texture, no items
    with pytest.raises(NoGameFound):
        coarse_table_plane(image, art_library(catalogue))


def test_tiny_blurred_coasters_are_found_in_an_upsampled_copy(catalogue, monkeypatch) -> None:
    items = [
        Placed(side(catalogue, "coaster", "triple"), "blue", (60.0, 60.0), np.deg2rad(20)),
        Placed(side(catalogue, "coaster", "beer"), "red", (190.0, 70.0), np.deg2rad(-65)),
        Placed(side(catalogue, "coaster", "three"), "yellow", (120.0, 170.0), np.deg2rad(140)),
        Placed(side(catalogue, "coaster", "double"), "green", (175.0, 140.0), np.deg2rad(75)),
    ]
    homography = table_homography(0.5, tilt=0.0004, origin_px=(40.0, 40.0))  # 50 px coasters
    image = cv2.GaussianBlur(render_scene(catalogue, items, homography, (240, 230)), (0, 0), 0.8)
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (240, 230))
    true = np.array([it.center_mm for it in items])
    px = np.array([(homography @ [*c, 1])[:2] / (homography @ [*c, 1])[2] for c in true])
    found = plane.image_to_table(px)
    d_found = np.linalg.norm(found[:, None] - found[None], axis=2)
    d_true = np.linalg.norm(true[:, None] - true[None], axis=2)
    assert np.abs(d_found - d_true).max() < 0.15 * d_true.max()  # a first, rough plane
    monkeypatch.setattr("vision.detect.UPSAMPLED_LONG_SIDE_PX", 1)  # without the upsampled copy
    with pytest.raises(NoGameFound):
        coarse_table_plane(image, library)
