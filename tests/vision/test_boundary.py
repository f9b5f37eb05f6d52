"""Tests for vision.boundary.find_boundary on synthetic scenes and two dev-set photos."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
import shapely

from vision._string_color import HUE_SIGMA_DEG, StringColour, calibrate, string_likelihood
from vision.boundary import (
    DEFAULT_STRING_RGB,
    Boundary,
    find_boundary,
    find_boundary_where_seen,
)
from vision.load import load_photo
from vision.segmentation import segmenter

STRING_BGR = (146, 211, 228)


def _wood_table(width: int, height: int, seed: int) -> np.ndarray:
    """A brown table with wavy grain and sensor noise, (H, W, 3) uint8 BGR."""
    rng = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    grain = np.sin(ys / 7.0 + 3.0 * np.sin(xs / 150.0)) * 0.5 + 0.5
    base = np.array([45, 80, 130], np.float32)  # BGR brown
    table = base[None, None, :] * (0.75 + 0.35 * grain[..., None])
    table += rng.normal(0, 6, table.shape).astype(np.float32)
    return np.clip(table, 0, 255).astype(np.uint8)


def _loop(width: int, height: int) -> np.ndarray:
    """(N, 2) closed wobbly loop, px."""
    angle = np.linspace(0, 2 * np.pi, 720, endpoint=False)
    radius = 1.0 + 0.08 * np.sin(3 * angle) + 0.05 * np.cos(5 * angle + 1.0)
    xs = width / 2 + 0.33 * width * radius * np.cos(angle)
    ys = height / 2 + 0.33 * height * radius * np.sin(angle)
    return np.stack([xs, ys], axis=1)


def _coasters(loop: np.ndarray, width: int, height: int) -> list[np.ndarray]:
    """Rotated squares (px corner lists): four over the string, two inside, one outside."""
    centres = [loop[40], loop[200], loop[390], loop[560], (width * 0.45, height * 0.5)]
    centres += [(width * 0.58, height * 0.42), (width * 0.06, height * 0.1)]
    sizes = [110, 150, 90, 200, 120, 120, 100]  # 200 px: a gap of about 25 string widths
    squares = []
    for index, (centre, size) in enumerate(zip(centres, sizes, strict=True)):
        rect = ((float(centre[0]), float(centre[1])), (size, size), 17.0 * index)
        squares.append(cv2.boxPoints(rect))
    return squares


def _scene(with_string: bool, seed: int = 3) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    width, height = 1600, 1200
    image = _wood_table(width, height, seed)
    loop = _loop(width, height)
    if with_string:
        scaled = np.round(loop * 16).astype(np.int32)
        cv2.polylines(image, [scaled], True, STRING_BGR, 8, cv2.LINE_AA, 4)
        # braid: darker stitches along the cord
        for point in loop[::3]:
            cv2.circle(image, (int(point[0]), int(point[1])), 1, (110, 170, 190), -1)
    colours = [(200, 120, 30), (40, 40, 200), (60, 160, 60), (20, 178, 242), (230, 230, 230)]
    mask = np.zeros((height, width), np.uint8)
    for index, square in enumerate(_coasters(loop, width, height)):
        corners = np.round(square).astype(np.int32)
        cv2.fillPoly(image, [corners], colours[index % len(colours)])
        cv2.fillPoly(mask, [corners], 1)
    return image, mask.astype(bool), loop


def _plain_table_with_cord(
    table_bgr: tuple[int, int, int], noise: float, cord_bgr: tuple[int, int, int], seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """A 1600x1200 plain table with sensor noise (levels) and a cord along :func:`_loop`:
    the (H, W, 3) uint8 BGR image and the (N, 2) loop, px."""
    width, height = 1600, 1200
    rng = np.random.default_rng(seed)
    image = np.full((height, width, 3), table_bgr, np.float32)
    image += rng.normal(0, noise, image.shape).astype(np.float32)
    image = np.clip(image, 0, 255).astype(np.uint8)
    truth = _loop(width, height)
    cv2.polylines(image, [np.round(truth * 16).astype(np.int32)], True, cord_bgr, 8, cv2.LINE_AA, 4)
    return image, truth


def _visible_distances(found: Boundary, truth: np.ndarray, item_mask: np.ndarray) -> np.ndarray:
    xs = np.round(truth[:, 0]).astype(int)
    ys = np.round(truth[:, 1]).astype(int)
    visible = ~item_mask[ys, xs]
    ring = shapely.LinearRing(found.polygon_px)
    return shapely.distance(shapely.points(truth[visible]), ring)


def _iou(first: np.ndarray, second: np.ndarray) -> float:
    a, b = shapely.Polygon(first).buffer(0), shapely.Polygon(second).buffer(0)
    return a.intersection(b).area / a.union(b).area


def test_synthetic_loop_with_gaps_under_items_is_recovered() -> None:
    image, item_mask, truth = _scene(with_string=True)
    found = find_boundary(image, item_mask=item_mask)
    assert found is not None
    assert found.polygon_px.ndim == 2 and found.polygon_px.shape[1] == 2
    assert found.polygon_px.dtype == np.float64
    distances = _visible_distances(found, truth, item_mask)
    assert np.mean(distances) < 0.7
    assert np.percentile(distances, 95) < 1.5
    assert _iou(found.polygon_px, truth) > 0.98
    assert 0.3 < found.confidence <= 1.0


def test_synthetic_loop_without_item_mask_still_closes() -> None:
    image, _, truth = _scene(with_string=True)
    found = find_boundary(image)
    assert found is not None
    assert _iou(found.polygon_px, truth) > 0.97


def test_thin_cord_of_a_distant_table_is_found_in_a_finer_analysis_image() -> None:
    """A cord 2 px wide in a 1600 px photo (a table seen from afar): halved for the search, it
    is too thin to find; told its width, the search looks again at full resolution."""
    width, height = 1600, 1200
    image = _wood_table(width, height, 5)
    angle = np.linspace(0, 2 * np.pi, 720, endpoint=False)
    radius = 110.0 * (1.0 + 0.08 * np.sin(3 * angle) + 0.05 * np.cos(5 * angle + 1.0))
    truth = np.stack(
        [width / 2 + 1.3 * radius * np.cos(angle), height / 2 + radius * np.sin(angle)], axis=1
    )
    cv2.polylines(
        image, [np.round(truth * 16).astype(np.int32)], True, STRING_BGR, 2, cv2.LINE_AA, 4
    )
    assert find_boundary(image) is None
    found = find_boundary(image, string_width_px=2.0)
    assert found is not None
    assert _iou(found.polygon_px, truth) > 0.98
    assert find_boundary(image, string_width_px=5.0) is None  # wide enough halved: not again


def _cord_on_wood(radius_px: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A 1600x1200 wood table with a wobbly cord loop of about ``radius_px`` around its centre:
    the (H, W, 3) uint8 BGR image and the (N, 2) loop, px."""
    width, height = 1600, 1200
    image = _wood_table(width, height, seed)
    angle = np.linspace(0, 2 * np.pi, 720, endpoint=False)
    radius = radius_px * (1.0 + 0.08 * np.sin(3 * angle) + 0.05 * np.cos(5 * angle + 1.0))
    truth = np.stack([width / 2 + radius * np.cos(angle), height / 2 + radius * np.sin(angle)], 1)
    cv2.polylines(
        image, [np.round(truth * 16).astype(np.int32)], True, STRING_BGR, 8, cv2.LINE_AA, 4
    )
    return image, truth


def _fits_cord_length(truth: np.ndarray) -> Callable[[np.ndarray], bool]:
    """A ``length_fits`` for :func:`find_boundary`: loops 0.6-1.4 times as long as ``truth``."""
    cord_px = shapely.LinearRing(truth).length

    def length_fits(loop_px: np.ndarray) -> bool:
        return 0.6 * cord_px <= shapely.LinearRing(loop_px).length <= 1.4 * cord_px

    return length_fits


def test_a_loop_longer_than_the_cord_is_refused_when_lengths_are_known() -> None:
    """A straw-coloured frame around the cord (a table's edge in a warm light) is a closed loop
    seen over its whole length, so it wins on the image alone; told which lengths the cord can
    have, the search takes the cord."""
    image, truth = _cord_on_wood(300.0, seed=7)
    cv2.rectangle(image, (250, 150), (1350, 1050), STRING_BGR, 8)
    length_fits = _fits_cord_length(truth)

    frame = find_boundary(image)
    assert frame is not None and _iou(frame.polygon_px, truth) < 0.5
    found = find_boundary(image, length_fits=length_fits)
    assert found is not None and _iou(found.polygon_px, truth) > 0.98


def test_a_loop_short_in_widths_is_taken_when_it_fits_the_cord_on_the_table() -> None:
    """A cord that looks thick for its length (half the cord's length in its widths, as a
    blurred or steeply tilted photo shows it), more than half of it under six items: on the
    image alone the loop is implausibly short and too little of it shows; told that its length
    on the table fits the cord's, the search takes it."""
    image, truth = _cord_on_wood(260.0, seed=11)
    item_mask = np.zeros(image.shape[:2], np.uint8)
    for k in range(6):
        centre = truth[k * 120]
        corners = cv2.boxPoints(((float(centre[0]), float(centre[1])), (110, 110), 20.0 * k))
        cv2.fillPoly(image, [corners.astype(np.int32)], (200, 200, 205))
        cv2.fillPoly(item_mask, [corners.astype(np.int32)], 1)

    assert find_boundary(image, item_mask=item_mask > 0) is None
    found = find_boundary(image, item_mask=item_mask > 0, length_fits=_fits_cord_length(truth))
    assert found is not None and _iou(found.polygon_px, truth) > 0.98


def test_string_more_saturated_than_nominal_on_a_string_coloured_table() -> None:
    """A warm light: the table looks like the nominal string colour and the cord is more
    saturated; the search falls back to other colour models and still finds the loop."""
    image, truth = _plain_table_with_cord((112, 140, 150), 5.0, (80, 170, 200), seed=5)
    nominal = StringColour.from_rgb(DEFAULT_STRING_RGB)
    table_pixel = np.array([[[112, 140, 150]]], np.uint8)
    string_pixel = np.array([[[80, 170, 200]]], np.uint8)
    assert string_likelihood(table_pixel, nominal) > string_likelihood(string_pixel, nominal)
    found = find_boundary(image)
    assert found is not None
    distances = shapely.distance(shapely.points(truth), shapely.LinearRing(found.polygon_px))
    assert np.percentile(distances, 95) < 1.0


def test_calibration_follows_the_seen_colour_within_limits() -> None:
    nominal = StringColour.from_rgb(DEFAULT_STRING_RGB)
    saturated = np.tile(np.array([[100, 190, 215]], np.uint8), (200, 1))  # BGR, warmer cord
    calibrated = calibrate(nominal, saturated)
    assert calibrated is not None
    assert calibrated.chroma_ratio > nominal.chroma_ratio
    assert abs(calibrated.hue_deg - nominal.hue_deg) <= 1.5 * HUE_SIGMA_DEG
    blue = np.tile(np.array([[200, 60, 20]], np.uint8), (200, 1))
    assert calibrate(nominal, blue) is None  # nothing string-like to learn from


def _closed_cord_on_wood(loop_px: np.ndarray, seed: int) -> np.ndarray:
    """A 1600x1200 wood table with a cord drawn along the closed ``loop_px`` ((N, 2) px)."""
    image = _wood_table(1600, 1200, seed)
    scaled = np.round(loop_px * 16).astype(np.int32)
    cv2.polylines(image, [scaled], True, STRING_BGR, 8, cv2.LINE_AA, 4)
    return image


def test_a_chain_folded_back_on_itself_is_not_the_loop() -> None:
    """A closed chain of the cord's colour that encloses little of the table (as one traced out
    along the cord and back along a parallel ridge) is refused though its length fits; the same
    length of cord laid round is found."""
    angle = np.linspace(0, 2 * np.pi, 2000, endpoint=False)
    hairpin = np.stack([800 + 650 * np.cos(angle), 600 + 45 * np.sin(angle)], axis=1)
    length_px = float(np.linalg.norm(np.roll(hairpin, -1, axis=0) - hairpin, axis=1).sum())
    radius_px = length_px / (2 * np.pi)
    circle = np.stack([800 + radius_px * np.cos(angle), 600 + radius_px * np.sin(angle)], axis=1)

    assert find_boundary(_closed_cord_on_wood(hairpin, seed=5)) is None
    found = find_boundary(_closed_cord_on_wood(circle, seed=5))
    assert found is not None
    assert _iou(found.polygon_px, circle) > 0.97


@pytest.mark.parametrize("item_mask_known", [True, False])
def test_table_without_string_gives_none(item_mask_known: bool) -> None:
    image, item_mask, _ = _scene(with_string=False)
    assert find_boundary(image, item_mask=item_mask if item_mask_known else None) is None


def _seen_by_a_segmenter(
    loop: np.ndarray, size: tuple[int, int], image_size: tuple[int, int]
) -> np.ndarray:
    """A segmenter's string probability at its coarse resolution ``size`` (width, height) for
    a working image of ``image_size``: the cord ``loop`` (working px) a model pixel wide at
    0.45 (blurred below the argmax boundary, as a thin cord comes out), with gaps."""
    width, height = size
    scale = np.array([width / image_size[0], height / image_size[1]])
    seen = np.zeros((height, width), np.float32)
    points = np.round((loop + 0.5) * scale * 16 - 8).astype(np.int32)
    for start in range(0, len(points), 120):  # 110 of every 120 points seen
        cv2.polylines(seen, [points[start : start + 110]], False, 0.45, 1, cv2.LINE_AA, 4)
    return seen


def test_a_cord_of_the_tables_colour_is_traced_where_the_segmenter_sees_it() -> None:
    """A straw cord on a straw table (held-out 0290: the cord's L* 61 and hue 106 against the
    wood's 59 and 108) shows no colour of its own; where the segmenter sees it, its loop is
    traced through the gaps, and marked as not found by colour."""
    table = (118, 170, 182)
    image, truth = _plain_table_with_cord(table, 5.0, (121, 172, 184), seed=13)
    string_seen = _seen_by_a_segmenter(truth, (512, 384), (1600, 1200))
    assert find_boundary(image, length_fits=_fits_cord_length(truth)) is None

    found = find_boundary_where_seen(
        image, string_seen, string_width_px=8.0, length_fits=_fits_cord_length(truth)
    )
    assert found is not None and not found.by_colour
    assert _iou(found.polygon_px, truth) > 0.97
    assert find_boundary_where_seen(image, np.zeros_like(string_seen)) is None


@pytest.mark.parametrize(
    "image",
    [np.zeros((600, 800, 3), np.uint8), np.full((600, 800, 3), 255, np.uint8)],
    ids=["black", "white"],
)
def test_blank_frames_give_none(image: np.ndarray) -> None:
    assert find_boundary(image) is None


@pytest.mark.parametrize(
    ("image", "mask"),
    [
        (np.zeros((600, 800), np.uint8), None),
        (np.zeros((600, 800, 3), np.float32), None),
        (np.zeros((600, 800, 3), np.uint8), np.zeros((60, 80), bool)),
    ],
    ids=["grey", "float", "mask_shape"],
)
def test_bad_arguments_raise(image: np.ndarray, mask: np.ndarray | None) -> None:
    with pytest.raises(ValueError):
        find_boundary(image, item_mask=mask)


DEVSET = Path("/work/shared/devset")


def _devset_photo(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(working image, item mask from the ground truth, true centre line in working px)."""
    truth = json.loads((DEVSET / f"{name}.json").read_text())
    photo = load_photo(DEVSET / f"{name}.jpg")
    height, width = photo.image_bgr.shape[:2]
    item_mask = np.zeros((height, width), np.uint8)
    for item in truth["items"]:
        outline = np.round(photo.to_working_px(np.asarray(item["polygon_px"]))).astype(np.int32)
        cv2.fillPoly(item_mask, [outline], 1)
    truth_loop = photo.to_working_px(np.asarray(truth["boundary_px"]))
    return photo.image_bgr, item_mask.astype(bool), truth_loop


@pytest.mark.skipif(not DEVSET.is_dir(), reason="shared devset not available")
@pytest.mark.parametrize("name", ["0003", "0020"])
def test_devset_photo(name: str) -> None:
    image, item_mask, truth_loop = _devset_photo(name)
    height, width = image.shape[:2]
    dense = np.asarray(shapely.LinearRing(truth_loop).segmentize(1.0).coords)[:-1]
    inside = (
        (dense[:, 0] >= 0)
        & (dense[:, 0] < width - 1)
        & (dense[:, 1] >= 0)
        & (dense[:, 1] < height - 1)
    )
    found = find_boundary(image, item_mask=item_mask)
    assert found is not None
    assert _iou(found.polygon_px, truth_loop) > 0.98
    distances = _visible_distances(found, dense[inside], item_mask)
    assert np.percentile(distances, 95) < 2.0


@pytest.mark.skipif(not DEVSET.is_dir(), reason="shared devset not available")
@pytest.mark.parametrize("item_mask_known", [True, False])
def test_devset_photo_with_the_string_painted_out_gives_none(item_mask_known: bool) -> None:
    image, item_mask, truth_loop = _devset_photo("0011")
    height, width = image.shape[:2]
    band = np.zeros((height, width), np.uint8)
    cv2.polylines(band, [np.round(truth_loop).astype(np.int32)], True, 255, 24)
    half = (width // 2, height // 2)
    painted = cv2.inpaint(cv2.resize(image, half), cv2.resize(band, half), 5, cv2.INPAINT_TELEA)
    painted = cv2.resize(painted, (width, height))
    image = np.where(band[..., None] > 0, painted, image)
    assert find_boundary(image, item_mask=item_mask if item_mask_known else None) is None
    if item_mask_known:  # nor does the segmenter see a loop the colour search missed
        string_seen = segmenter().segment(image).probability("string")
        assert find_boundary_where_seen(image, string_seen, item_mask=item_mask) is None


def test_synthetic_loop_under_an_item_missing_from_the_mask_still_closes() -> None:
    """The item mask is a hint, not a complete list: when the detector misses a coaster the
    string runs under, the long gap it hides is bridged anyway (at a surcharge)."""
    image, _, truth = _scene(with_string=True)
    height, width = image.shape[:2]
    partial_mask = np.zeros((height, width), np.uint8)
    squares = _coasters(truth, width, height)
    for index, square in enumerate(squares):
        if index != 3:  # the 200 px coaster over the string (a gap of about 25 widths) is missed
            cv2.fillPoly(partial_mask, [np.round(square).astype(np.int32)], 1)
    found = find_boundary(image, item_mask=partial_mask.astype(bool))
    assert found is not None
    assert _iou(found.polygon_px, truth) > 0.97


@pytest.mark.skipif(not DEVSET.is_dir(), reason="shared devset not available")
def test_devset_photo_with_an_item_missing_from_the_pipeline_mask() -> None:
    """Dev-set 0013 with the pipeline's item mask (built from detected items) less one item
    the string runs under, as when the detector misses it: the loop is still found."""
    image, _, truth_loop = _devset_photo("0013")
    saved = Path(__file__).parents[1] / "data" / "boundary_0013_items_one_missed.png"
    item_mask = cv2.imread(str(saved), cv2.IMREAD_GRAYSCALE) > 0
    assert item_mask.shape == image.shape[:2]
    found = find_boundary(image, item_mask=item_mask)
    assert found is not None
    assert _iou(found.polygon_px, truth_loop) > 0.98


@pytest.mark.skipif(not DEVSET.is_dir(), reason="shared devset not available")
def test_devset_loop_cut_off_by_the_photo_edge_is_closed() -> None:
    """Dev-set 0003 cropped so that the photo's right edge cuts through the loop: with the
    item mask, the stretch outside the photo is bridged like one under an unknown item."""
    image, item_mask, truth_loop = _devset_photo("0003")
    height = image.shape[0]
    left, right = truth_loop[:, 0].min(), truth_loop[:, 0].max()
    cut = int(right - 0.08 * (right - left))
    image = np.ascontiguousarray(image[:, :cut])
    item_mask = np.ascontiguousarray(item_mask[:, :cut])
    found = find_boundary(image, item_mask=item_mask)
    assert found is not None
    frame = shapely.box(0, 0, cut - 1, height - 1)
    seen = shapely.Polygon(found.polygon_px).buffer(0).intersection(frame)
    true = shapely.Polygon(truth_loop).buffer(0).intersection(frame)
    assert seen.intersection(true).area / seen.union(true).area > 0.98


def test_string_under_a_cold_light_is_found_by_a_shifted_hue(monkeypatch) -> None:
    """A straw cord under a cold light on a pale blue table: it shows greyish tan (CIELAB hue
    about 70 deg instead of 95, half the saturation), beyond what the calibration follows; the
    search tries shifted hues and washed-out saturations and finds the loop."""
    image, truth = _plain_table_with_cord((150, 136, 126), 4.0, (134, 150, 168), seed=7)
    found = find_boundary(image)
    assert found is not None
    distances = shapely.distance(shapely.points(truth), shapely.LinearRing(found.polygon_px))
    assert np.percentile(distances, 95) < 1.0
    monkeypatch.setattr("vision.boundary.ALTERNATIVE_HUE_SHIFTS_DEG", ())
    monkeypatch.setattr("vision.boundary.WASHED_OUT_CHROMA_FACTOR", 1.0)
    assert find_boundary(image) is None  # the nominal hue and saturations alone miss it
