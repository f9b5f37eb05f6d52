import numpy as np
import pytest
from shapely.geometry import Polygon

from vision.synthetic.loop import polyline_length_mm, resample_closed, sample_loop


@pytest.mark.parametrize("looseness", [0.0, 0.5, 1.0, 2.0])
def test_loop_has_exact_length_and_is_simple(looseness):
    for seed in range(5):
        loop = sample_loop(np.random.default_rng(seed), 2000.0, (400.0, 300.0), looseness)
        assert polyline_length_mm(loop) == pytest.approx(2000.0, abs=1e-6)
        polygon = Polygon(loop)
        assert polygon.is_valid and polygon.exterior.is_simple
        # Loosely laid, not a line: it encloses a good share of the circle's area.
        assert polygon.area > 0.4 * 2000.0**2 / (4 * np.pi)


def test_loop_points_are_evenly_spaced():
    loop = sample_loop(np.random.default_rng(3), 2000.0, (0.0, 0.0))
    closed = np.vstack([loop, loop[:1]])
    steps = np.linalg.norm(np.diff(closed, axis=0), axis=1)
    assert steps.max() / steps.min() < 1.2


def test_resample_keeps_shape():
    square = np.array([[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]])
    out = resample_closed(square, 40)
    assert len(out) == 40
    assert polyline_length_mm(out) == pytest.approx(40.0)


def test_loop_rejects_bad_length():
    with pytest.raises(ValueError, match="positive"):
        sample_loop(np.random.default_rng(0), 0.0, (0.0, 0.0))
