"""Detection of item sides by their art: coarse plane, rectification, similarity poses."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest
from vision_scenes import Placed, phone_homography, render_scene, side, table_homography

import vision.detect
from vision.art import art_library
from vision.detect import (
    _VOTE_ANGLE_RAD,
    _VOTE_CELL,
    _VOTE_LOG_SCALE,
    MIN_SMALL_COASTER_INLIERS,
    SIFT_CONTRAST_THRESHOLD,
    CanvasView,
    _coarse_planes,
    _Features,
    _Hypothesis,
    _k_smallest,
    _sift_features,
    _vote_cells,
    coarse_table_plane,
    coarse_table_planes,
    detect_sides,
    rectify,
    region_in_view,
)
from vision.errors import NoGameFound
from vision.plane import ItemPose, TablePlane
from vision.segmentation import ItemRegion


def _distance_error_mm(
    plane: TablePlane, homography: np.ndarray, items: list[Placed]
) -> tuple[float, float]:
    """Largest error (mm) of the distances between the items' centres measured through
    ``plane`` from where ``homography`` put them in the image, and the largest true distance."""
    true = np.array([it.center_mm for it in items])
    px = np.array([(homography @ [*c, 1])[:2] / (homography @ [*c, 1])[2] for c in true])
    found = plane.image_to_table(px)
    d_found = np.linalg.norm(found[:, None] - found[None], axis=2)
    d_true = np.linalg.norm(true[:, None] - true[None], axis=2)
    return float(np.abs(d_found - d_true).max()), float(d_true.max())


def test_coarse_plane_maps_item_layout(small_table, catalogue) -> None:
    image, homography, items = small_table
    h, w = image.shape[:2]
    g = coarse_table_plane(image, art_library(catalogue))
    plane = TablePlane(g, 0.0, 0.0, (w, h))
    # distances between item centres measured through the found plane are the true ones
    assert _distance_error_mm(plane, homography, items)[0] < 3.0


def test_detect_sides_finds_every_item_with_its_pose(small_table, small_table_searched) -> None:
    _, homography, items = small_table
    plane, detections = small_table_searched.plane, small_table_searched.sides
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


def test_coarse_plane_is_found_in_the_region_given_or_else_everywhere(
    small_table, catalogue, monkeypatch
) -> None:
    """Features are taken only where the segmenter sees items; a region that holds no coaster
    (a segmenter gone wrong) costs a second search of the whole image, not the game."""
    image, homography, items = small_table
    h, w = image.shape[:2]
    library = art_library(catalogue)
    masks_seen = []
    sift = vision.detect._sift_features

    def recording(gray, mask=None):
        masks_seen.append(None if mask is None else float((mask > 0).mean()))
        return sift(gray, mask)

    monkeypatch.setattr(vision.detect, "_sift_features", recording)
    around_items = np.zeros((h // 4, w // 4), np.float32)
    for item in items:
        centre_px = homography @ [*item.center_mm, 1]
        centre = np.round((centre_px[:2] / centre_px[2] + 0.5) / 4 - 0.5).astype(int).tolist()
        cv2.circle(around_items, centre, 30, 1.0, -1)
    for mask, everywhere in ((around_items, False), (np.zeros_like(around_items), True)):
        masks_seen.clear()
        g = coarse_table_planes(image, library, ItemRegion(mask, (0.25, 0.25)))[0]
        plane = TablePlane(g, 0.0, 0.0, (w, h))
        assert _distance_error_mm(plane, homography, items)[0] < 3.0
        assert masks_seen[0] is not None and masks_seen[0] < 0.6  # the region first
        assert (None in masks_seen) is everywhere


def test_detect_sides_looks_only_in_the_region_given(small_table, catalogue) -> None:
    """A region (as the segmenter gives it, at a quarter of the working size) around the beer
    coaster alone finds that coaster alone, where it is found without one; an empty region
    finds nothing."""
    image, homography, items = small_table
    h, w = image.shape[:2]
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (w, h))
    view = rectify(image, plane)
    beer = next(it for it in items if it.side.type_name == "beer")
    centre_px = homography @ [*beer.center_mm, 1]
    centre_px = centre_px[:2] / centre_px[2]
    mask = np.zeros((h // 4, w // 4), np.float32)
    cv2.circle(mask, np.round((centre_px + 0.5) / 4 - 0.5).astype(int).tolist(), 18, 1.0, -1)
    where = region_in_view(ItemRegion(mask, (0.25, 0.25)), plane, view)
    assert where.shape == view.ink.shape and where.dtype == np.uint8
    assert 0.01 < (where > 0).mean() < 0.1
    # rectified coarsely, it holds all of the region rectified at the view's own scale
    bounds = view.bounds_mm()
    fine = rectify(mask, plane, bounds, px_per_mm=view.px_per_mm, image_scale=(0.25, 0.25))
    assert (where[fine.image_bgr > 0] > 0).all()
    assert (where > 0).sum() < 1.3 * (fine.image_bgr > 0).sum()
    everywhere = detect_sides(view, library)
    found = detect_sides(view, library, where)
    assert [d.side.type_name for d in found] == ["beer"]
    same = next(d for d in everywhere if d.side.type_name == "beer")
    assert np.hypot(*np.subtract(found[0].pose.center_mm, same.pose.center_mm)) < 0.5
    assert detect_sides(view, library, np.zeros_like(where)) == []


def test_blank_table_has_no_game(catalogue) -> None:
    image = np.full((600, 800, 3), (60, 90, 120), np.uint8)
    image[::7] = 40  # some texture, no items
    with pytest.raises(NoGameFound, match="take the photo closer"):  # says what to do
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
    error_mm, spread_mm = _distance_error_mm(plane, homography, items)
    assert error_mm < 0.15 * spread_mm  # a first, rough plane
    monkeypatch.setattr("vision.detect.UPSAMPLED_LONG_SIDE_PX", 1)  # without the upsampled copy
    monkeypatch.setattr("vision.detect.MIN_FAINT_COASTER_INLIERS", MIN_SMALL_COASTER_INLIERS)
    with pytest.raises(NoGameFound):
        coarse_table_plane(image, library)


def _small_coasters(catalogue) -> list[Placed]:
    """Five coasters spread over 270 mm of table, to be seen at about 0.45 px/mm (48 px across)."""
    return [
        Placed(side(catalogue, "coaster", "triple"), "blue", (60.0, 60.0), np.deg2rad(20)),
        Placed(side(catalogue, "coaster", "beer"), "red", (200.0, 70.0), np.deg2rad(-65)),
        Placed(side(catalogue, "coaster", "three"), "yellow", (110.0, 190.0), np.deg2rad(140)),
        Placed(side(catalogue, "coaster", "double"), "green", (250.0, 180.0), np.deg2rad(75)),
        Placed(side(catalogue, "coaster", "soft"), "gray", (330.0, 80.0), np.deg2rad(200)),
    ]


def test_small_tilted_coasters_give_a_plane_as_affine_matches(catalogue, monkeypatch) -> None:
    """Coasters 48 px across, foreshortened to 85 % across the tilt and blurred: none gives a
    homography of its own, but several matched as affine maps place a first, rough plane."""
    items = _small_coasters(catalogue)
    homography = table_homography(0.45, tilt=0.0004)
    homography[1, 1] *= 0.85
    image = cv2.GaussianBlur(render_scene(catalogue, items, homography, (240, 195)), (0, 0), 0.9)
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (240, 195))
    error_mm, spread_mm = _distance_error_mm(plane, homography, items)
    assert error_mm < 0.15 * spread_mm  # a first, rough plane
    monkeypatch.setattr("vision.detect.MIN_SMALL_COASTERS", len(items) + 1)  # no affine look
    with pytest.raises(NoGameFound):
        coarse_table_plane(image, library)


def test_faint_small_coasters_are_the_last_resort(catalogue, monkeypatch) -> None:
    """Coasters 52 px across, blurred by 1.5 px (a soft or grainy photo): none keeps the
    features of an affine match at the usual count, but with the fainter matches of the last
    resort several still place a first, rough plane."""
    items = _small_coasters(catalogue)
    homography = table_homography(0.55, tilt=0.0004)
    image = cv2.GaussianBlur(render_scene(catalogue, items, homography, (240, 163)), (0, 0), 1.5)
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (240, 163))
    error_mm, spread_mm = _distance_error_mm(plane, homography, items)
    assert error_mm < 0.15 * spread_mm
    monkeypatch.setattr("vision.detect.MIN_FAINT_COASTER_INLIERS", MIN_SMALL_COASTER_INLIERS)
    with pytest.raises(NoGameFound):
        coarse_table_plane(image, library)


def test_one_sharp_coaster_among_small_blurred_ones_gives_a_second_plane(catalogue) -> None:
    """Five coasters 48 px across, seen by a phone tilted 32 degrees; all but one blurred.
    The sharp one alone gives a homography, a plane placed as a camera would see it (in either
    of its mirror poses: 48 px leave them in doubt) that is skewed far from it; all five matched
    as affine maps give the last candidate, which keeps the distances between them."""
    items = _small_coasters(catalogue)
    homography = phone_homography(0.45, 32.0, (195.0, 125.0), (229, 175))
    sharp = render_scene(catalogue, items, homography, (229, 175))
    image = cv2.GaussianBlur(sharp, (0, 0), 0.8)
    first_px = homography @ [*items[0].center_mm, 1.0]
    keep_sharp = np.zeros(image.shape[:2], np.uint8)
    cv2.circle(keep_sharp, tuple(int(v) for v in first_px[:2] / first_px[2]), 27, 255, -1)
    image[keep_sharp > 0] = sharp[keep_sharp > 0]
    planes = coarse_table_planes(image, art_library(catalogue))
    assert len(planes) in (2, 3)
    errors = [
        _distance_error_mm(TablePlane(g, 0.0, 0.0, (229, 175)), homography, items) for g in planes
    ]
    *one_coaster, (several_mm, spread_mm) = errors
    assert several_mm < 0.05 * spread_mm < min(error_mm for error_mm, _ in one_coaster)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_small_coasters_give_the_plane_from_their_camera_poses(monkeypatch, seed) -> None:
    """Two coasters 32-39 px across and 640 px apart, seen by a phone tilted 28 degrees (the layout
    of fresh held-out 0322), 20 features each with 0.3 px of noise. The strongest coaster's free
    homography fits its own features within about a px, yet its perspective is off: the joint
    fit from it alone lands far from the table. From either coaster's camera poses it keeps the
    distances across the table."""
    size = (1600, 1200)
    truth = phone_homography(0.4, 28.0, (0.0, 0.0), size)
    seen_by_truth = TablePlane(truth, 0.0, 0.0, size).table_to_image
    rng = np.random.default_rng(seed)
    hypotheses, points = [], []
    for k, pose in enumerate([ItemPose((-800.0, 150.0), 0.4), ItemPose((850.0, 350.0), -1.1)]):
        local = rng.uniform(-40.0, 40.0, (20, 2))
        seen = seen_by_truth(pose.local_to_table(local)) + rng.normal(0.0, 0.3, (20, 2))
        transform = truth @ pose.local_to_table_matrix()
        if k == 0:  # a little perspective of its own, as RANSAC may give it from 35 px
            transform = transform @ np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1e-3, -5e-4, 1.0]])
            own = TablePlane(transform, 0.0, 0.0, size).table_to_image(local)
            assert np.abs(own - seen).max() < 1.5
        template = SimpleNamespace(points_mm=local)
        ids = np.arange(20)
        hypotheses.append(_Hypothesis(template, transform, ids + 20 * k, ids))
        points.append(seen)
    features = _Features(np.concatenate(points), np.zeros(40), np.ones(40), np.zeros((40, 128)))
    far_mm = np.array([[0.0, -600.0], [0.0, 900.0], [-800.0, 900.0], [800.0, -600.0]])
    true_distances = np.linalg.norm(far_mm[:, None] - far_mm[None], axis=2)

    def distance_error_mm() -> float:
        (homography,) = _coarse_planes(hypotheses, features, 1.0, size)
        found = TablePlane(homography, 0.0, 0.0, size).image_to_table(seen_by_truth(far_mm))
        return float(
            np.abs(np.linalg.norm(found[:, None] - found[None], axis=2) - true_distances).max()
        )

    assert distance_error_mm() < 0.02 * true_distances.max()
    monkeypatch.setattr("vision.detect.COARSE_START_COASTERS", 0)  # the free homography alone
    assert distance_error_mm() > 0.1 * true_distances.max()


@pytest.mark.parametrize("grain_px", [0.7, 3.0])
def test_noise_textures_have_no_game(catalogue, grain_px: float) -> None:
    """Random textures of fine and coarse grain give no coaster, not even as affine matches."""
    noise = np.random.default_rng(0).normal(0.0, 1.0, (600, 800, 3)).astype(np.float32)
    noise = cv2.GaussianBlur(noise, (0, 0), grain_px)
    image = np.clip(128 + noise / noise.std() * 40, 0, 255).astype(np.uint8)
    with pytest.raises(NoGameFound):
        coarse_table_plane(image, art_library(catalogue))


def test_coasters_out_of_focus_are_found_by_their_blurred_art(catalogue, monkeypatch) -> None:
    """Coasters blurred by 2.25 px at 1 px/mm: the second look, with templates of the art
    blurred as a camera out of focus sees it, finds more of them than the printed art alone."""
    items = [
        Placed(side(catalogue, "coaster", "triple"), "gray", (70.0, 70.0), np.deg2rad(20)),
        Placed(side(catalogue, "coaster", "beer"), "red", (200.0, 80.0), np.deg2rad(-65)),
        Placed(side(catalogue, "coaster", "three"), "yellow", (90.0, 200.0), np.deg2rad(140)),
        Placed(side(catalogue, "coaster", "double"), "green", (220.0, 210.0), np.deg2rad(75)),
        Placed(side(catalogue, "coaster", "soft"), "gray", (330.0, 120.0), np.deg2rad(200)),
        Placed(side(catalogue, "coaster", "triple"), "blue", (340.0, 250.0), np.deg2rad(-20)),
    ]
    homography = table_homography(1.0)
    image = cv2.GaussianBlur(render_scene(catalogue, items, homography, (520, 410)), (0, 0), 2.25)
    view = rectify(image, TablePlane(homography, 0.0, 0.0, (520, 410)), np.array([0, 0, 440, 330]))
    library = art_library(catalogue)
    found = detect_sides(view, library)
    monkeypatch.setattr("vision.detect.OUT_OF_FOCUS_BLUR_MM", 0.0)  # the printed art only
    found_printed_only = detect_sides(view, library)
    assert len(found) > len(found_printed_only)
    true = {(it.side.type_name, it.center_mm) for it in items}
    for detection in found:  # every coaster found is a true one, at its place
        nearest = min(true, key=lambda t: np.hypot(*np.subtract(t[1], detection.pose.center_mm)))
        assert detection.side.type_name == nearest[0]
        assert np.hypot(*np.subtract(nearest[1], detection.pose.center_mm)) < 4.0


def test_a_table_out_of_focus_is_placed_by_the_blurred_art(catalogue, monkeypatch) -> None:
    """Every coaster blurred by 1.8 mm: the printed art finds no coaster, the blurred art finds
    them, and the plane they give keeps the distances between the coasters roughly."""
    items = [
        Placed(side(catalogue, "coaster", "triple"), "gray", (70.0, 70.0), np.deg2rad(20)),
        Placed(side(catalogue, "coaster", "beer"), "red", (200.0, 80.0), np.deg2rad(-65)),
        Placed(side(catalogue, "coaster", "three"), "yellow", (90.0, 200.0), np.deg2rad(140)),
        Placed(side(catalogue, "coaster", "double"), "green", (220.0, 210.0), np.deg2rad(75)),
    ]
    homography = table_homography(2.0, tilt=0.0004)
    image = cv2.GaussianBlur(render_scene(catalogue, items, homography, (700, 640)), (0, 0), 3.6)
    library = art_library(catalogue)
    plane = TablePlane(coarse_table_plane(image, library), 0.0, 0.0, (700, 640))
    error_mm, spread_mm = _distance_error_mm(plane, homography, items)
    assert error_mm < 0.15 * spread_mm  # a first, rough plane
    monkeypatch.setattr("vision.detect.OUT_OF_FOCUS_BLUR_MM", 0.0)  # the printed art only
    monkeypatch.setattr("vision.detect.MIN_SMALL_COASTERS", len(items) + 1)  # as homographies
    with pytest.raises(NoGameFound):
        coarse_table_plane(image, library)


def test_a_view_around_a_place_shows_the_same_table_at_the_same_pixels() -> None:
    image = np.random.default_rng(3).integers(0, 255, (120, 200, 3), dtype=np.uint8)
    view = CanvasView(image, (-40.0, 15.0), 1.6)
    local = view.around((10.0, 50.0), 20.0)
    assert local.px_per_mm == view.px_per_mm
    assert local.image_bgr.shape[:2] == (41, 41)
    table = np.array([[3.5, 44.0], [21.0, 58.0]])
    for (x, y), (lx, ly) in zip(
        np.round(view.table_to_canvas(table)).astype(int),
        np.round(local.table_to_canvas(table)).astype(int),
        strict=True,
    ):
        assert (local.image_bgr[ly, lx] == image[y, x]).all()
    # cut at the view's edges
    assert view.around((-40.0, 15.0), 20.0).image_bgr.shape[:2] == (21, 21)


def test_an_image_at_another_scale_is_rectified_onto_the_same_table() -> None:
    """A segmenter's probabilities come at a quarter of the working image's size (any number
    of channels): the view they give shows the same table as the working image's."""
    rng = np.random.default_rng(5)
    coarse = rng.random((30, 40, 3)).astype(np.float32)
    working = cv2.resize(coarse, (160, 120), interpolation=cv2.INTER_CUBIC)
    channels = np.concatenate([coarse, coarse[:, :, :2]], axis=2)  # 5 channels
    plane = TablePlane(table_homography(1.5, origin_px=(12.0, 9.0)), 0.0, 0.0, (160, 120))
    bounds = np.array([10.0, 5.0, 80.0, 60.0])
    full = rectify(working, plane, bounds, px_per_mm=0.5)
    scaled = rectify(channels, plane, bounds, px_per_mm=0.5, image_scale=(0.25, 0.25))
    assert scaled.image_bgr.shape == (*full.image_bgr.shape[:2], 5)
    assert scaled.origin_mm == full.origin_mm
    inner = (slice(2, -2), slice(2, -2))
    difference = np.abs(scaled.image_bgr[inner][:, :, :3] - full.image_bgr[inner])
    assert difference.mean() < 0.05
    np.testing.assert_array_equal(scaled.image_bgr[:, :, 3:], scaled.image_bgr[:, :, :2])


def test_a_view_too_large_to_hold_is_refused_before_it_is_made() -> None:
    """Bounds gone wrong (an item placed kilometres away) end in a clear error, not gigabytes."""
    image = np.zeros((300, 400, 3), np.uint8)
    plane = TablePlane(table_homography(1.0), 0.0, 0.0, (400, 300))
    with pytest.raises(NoGameFound, match="table view would be"):
        rectify(image, plane, np.array([0.0, 0.0, 700_000.0, 100_000.0]))
    # a view of the table the image shows is made as ever
    assert rectify(image, plane).image_bgr.shape[:2] == (479, 639)  # 299 x 399 mm at 1.6


def test_the_k_smallest_of_each_row_come_smallest_first_ties_by_index():
    rng = np.random.default_rng(3)
    values = rng.integers(0, 50, (200, 40)).astype(np.float32)  # many ties
    columns, smallest = _k_smallest(values.copy(), 5)

    order = np.lexsort((np.tile(np.arange(40), (200, 1)), values), axis=1)[:, :5]
    np.testing.assert_array_equal(columns, order)
    np.testing.assert_array_equal(smallest, np.take_along_axis(values, order, axis=1))


def _textured_on_black(shape=(2400, 2600), block=(slice(300, 1500), slice(1200, 2500))):
    """A uint8 image black but for a block of blurred noise (SIFT finds features there)."""
    rng = np.random.default_rng(11)
    noise = cv2.GaussianBlur(rng.random(shape).astype(np.float32), (0, 0), 3.0)
    noise = cv2.normalize(noise, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    image = np.zeros(shape, np.uint8)
    image[block] = noise[block]
    return image


def test_sift_tiles_cut_to_what_varies_find_the_whole_images_features():
    image = _textured_on_black()
    sift = cv2.SIFT_create(contrastThreshold=SIFT_CONTRAST_THRESHOLD)
    keypoints, _ = sift.detectAndCompute(image, None)
    whole = np.array([kp.pt for kp in keypoints])

    tiled = _sift_features(image).points

    assert len(whole) > 1000
    assert abs(len(tiled) - len(whole)) <= 0.01 * len(whole)
    found = cv2.BFMatcher(cv2.NORM_L2).match(tiled.astype(np.float32), whole.astype(np.float32))
    assert np.mean([m.distance < 0.01 for m in found]) > 0.99


def test_sift_finds_nothing_in_a_flat_image_or_outside_its_mask():
    assert len(_sift_features(np.full((1500, 1500), 90, np.uint8)).points) == 0
    image = _textured_on_black()
    mask = np.zeros(image.shape, np.uint8)
    mask[:, :1800] = 255

    points = _sift_features(image, mask).points

    assert len(points) > 100 and points[:, 0].max() < 1800


@pytest.mark.parametrize("axis", ["x", "y", "angle", "scale"])
def test_votes_straddling_a_cell_border_share_a_cell(catalogue, axis: str) -> None:
    """Votes for one item that differ by a fraction of a cell, on both sides of a border in
    any one of the four dimensions, are counted together in one cell: with one cell per vote
    they split, and a cluster of a few votes (a small coaster) falls under the vote count."""
    beer = side(catalogue, "coaster", "beer")
    template = art_library(catalogue).template(beer, 2.0)
    n = 6
    log_scale = np.full(n, 0.2 * _VOTE_LOG_SCALE)
    cell_px = _VOTE_CELL * beer.shape.half_extent_mm * 2.0
    cell_px *= 2.0 ** (0.5 * _VOTE_LOG_SCALE)
    centre_px = np.full((n, 2), 40.3 * cell_px)
    angle_rad = np.full(n, 5.5 * _VOTE_ANGLE_RAD)
    spread = np.linspace(-0.1, 0.1, n)  # of a cell, about a border
    if axis == "x":
        centre_px[:, 0] = (41.0 + spread) * cell_px
    elif axis == "y":
        centre_px[:, 1] = (41.0 + spread) * cell_px
    elif axis == "angle":
        angle_rad = (6.0 + spread) * _VOTE_ANGLE_RAD
    else:
        log_scale = (1.0 + spread) * _VOTE_LOG_SCALE
    cells = _vote_cells(beer, template, log_scale, centre_px, angle_rad)
    shared = set(cells[0].tolist())
    for row in cells[1:]:
        shared &= set(row.tolist())
    assert shared


def test_small_blurred_gray_coasters_keep_enough_keypoints(catalogue, monkeypatch) -> None:
    """Gray coasters of every type, 0.8 px/mm, 1.5 px out of focus and dimmed on a gray table:
    their print shows in the ink channel at about half the contrast of the other colours'.
    At SIFT's default contrast threshold most are missed; at the pipeline's, all are found."""
    types = ["beer", "triple", "double", "three", "soft"]
    items = [
        Placed(
            side(catalogue, "coaster", type_name),
            "gray",
            (70.0 + 130 * (k % 3), 70.0 + 130 * (k // 3)),
            np.deg2rad(37 * k),
        )
        for k, type_name in enumerate(types)
    ]
    homography = table_homography(0.8)
    size = (432, 320)
    image = render_scene(catalogue, items, homography, size, (120, 120, 125)).astype(np.float32)
    image = cv2.GaussianBlur(image, (0, 0), 1.5) * 0.7 + 30.0
    image += np.random.default_rng(1).normal(0, 3, image.shape)
    image = np.clip(image, 0, 255).astype(np.uint8)
    view = rectify(image, TablePlane(homography, 0.0, 0.0, size), np.array([0, 0, 440, 300]))
    library = art_library(catalogue)
    found = detect_sides(view, library)
    assert sorted(d.side.type_name for d in found) == sorted(types)
    monkeypatch.setattr("vision.detect.SIFT_CONTRAST_THRESHOLD", 0.04)  # OpenCV's default
    assert len(detect_sides(view, library)) < len(types)
