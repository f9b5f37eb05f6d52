import numpy as np
import pytest

from games.beer_pretzels.catalogue import Shape
from vision.calibration.art_frame import (
    art_px_to_mm,
    art_size_px,
    flatten_outside,
    mm_to_art_px,
    shape_alpha,
)


def test_mm_and_art_px_round_trip():
    pts = np.array([[-42.5, -42.5], [0.0, 0.0], [10.25, -3.5]])
    px = mm_to_art_px(pts, 85.0)
    assert px[0] == pytest.approx([-0.5, -0.5])
    assert px[1] == pytest.approx([424.5, 424.5])
    assert art_px_to_mm(px, 85.0) == pytest.approx(pts)


@pytest.mark.parametrize(
    "shape", [Shape("circle", 85.0), Shape("rounded_square", 85.0, 6.0), Shape("circle", 40.0)]
)
def test_shape_alpha_covers_the_shape_area(shape):
    alpha = shape_alpha(shape)
    assert alpha.shape == (art_size_px(shape),) * 2
    area_mm2 = alpha.astype(np.float64).sum() / 255 / 100
    assert area_mm2 == pytest.approx(shape.polygon_mm.area, rel=0.005)
    assert alpha[0, 0] == 0 and alpha[alpha.shape[0] // 2, alpha.shape[1] // 2] == 255


def test_flatten_outside_sets_the_edge_colour_outside():
    shape = Shape("circle", 20.0)
    bgra = np.zeros((200, 200, 4), np.uint8)
    bgra[:, :, :3] = (10, 200, 30)
    bgra[:5, :5, :3] = 0  # dark fringe outside the shape
    bgra[:, :, 3] = shape_alpha(shape)
    flat = flatten_outside(bgra)
    assert tuple(flat[0, 0, :3]) == (10, 200, 30)
    assert (flat[:, :, 3] == bgra[:, :, 3]).all()
