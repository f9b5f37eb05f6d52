import cv2
import numpy as np
import pytest

from games.beer_pretzels.catalogue import load_catalogue
from vision.calibration.art_frame import ART_PX_PER_MM, shape_alpha
from vision.calibration.fuse import fuse_views


@pytest.fixture(scope="module")
def triple():
    catalogue = load_catalogue()
    shape = catalogue.coaster_type("triple").shape
    art = cv2.imread(str(catalogue.art_path("coaster", "red", "triple", "up")), cv2.IMREAD_COLOR)
    assert art.shape[0] == round(shape.size_mm * ART_PX_PER_MM)
    return art, shape


def _shaded(art: np.ndarray, rows: slice, darker: float) -> np.ndarray:
    """``art`` with a soft shadow over ``rows`` (the print there ``darker`` times as bright)."""
    shade = np.ones(art.shape[:2], np.float32)
    shade[rows] = darker
    shade = cv2.GaussianBlur(shade, (0, 0), 20)
    return np.clip(art * shade[..., None], 0, 255).astype(np.uint8)


def test_each_part_of_the_art_comes_from_the_photo_least_shaded_there(triple):
    art, shape = triple
    n = art.shape[0]
    top, bottom = slice(0, n // 3), slice(2 * n // 3, n)
    first = _shaded(art, top, 0.6)
    # the second photo: shaded elsewhere, under a dimmer, warmer light, and 0.3 mm off
    second = _shaded(art, bottom, 0.6).astype(np.float32) * [0.8, 0.9, 1.0]
    shift = np.float32([[1, 0, 3], [0, 1, -2]])
    second = cv2.warpAffine(np.clip(second, 0, 255).astype(np.uint8), shift, (n, n))
    fused = fuse_views([first, second], 0, shape)
    inside = cv2.erode((shape_alpha(shape) > 250).astype(np.uint8), np.ones((41, 41))) > 0

    def error(image: np.ndarray, rows: slice) -> float:
        diff = np.abs(image.astype(float) - art)[rows]
        return float(diff[inside[rows]].mean())

    assert error(first, top) > 25  # the shadows the photos carry
    assert error(fused, top) < 8
    assert error(fused, bottom) < 8
    assert error(fused, slice(n // 3, 2 * n // 3)) < 8


def _glared(art: np.ndarray, rows: slice, levels: float) -> np.ndarray:
    """``art`` with a soft glare spot over ``rows``: ``levels`` of white light added there."""
    glare = np.zeros(art.shape[:2], np.float32)
    glare[rows] = levels
    glare = cv2.GaussianBlur(glare, (0, 0), 20)
    return np.clip(art + glare[..., None], 0, 255).astype(np.uint8)


def test_of_three_photos_neither_a_shadow_nor_a_glare_spot_is_kept(triple):
    art, shape = triple
    n = art.shape[0]
    top, bottom = slice(0, n // 5), slice(4 * n // 5, n)
    shadowed, glared = _shaded(art, top, 0.6), _glared(art, bottom, 90.0)
    inside = cv2.erode((shape_alpha(shape) > 250).astype(np.uint8), np.ones((41, 41))) > 0

    def error(image: np.ndarray, rows: slice) -> float:
        diff = np.abs(image.astype(float) - art)[rows]
        return float(diff[inside[rows]].mean())

    assert error(glared, bottom) > 25
    # with two photos the brighter wins, glare included; a third photo outvotes it
    assert error(fuse_views([shadowed, glared], 0, shape), bottom) > 15
    fused = fuse_views([shadowed, glared, art], 0, shape)
    assert error(fused, top) < 8
    assert error(fused, bottom) < 8


def test_a_single_photo_is_its_own_art(triple):
    art, shape = triple
    assert fuse_views([art], 0, shape) is art
