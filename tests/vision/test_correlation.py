"""The DFT correlator gives filter2D's zero-bordered correlation, each spectrum taken once."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.correlation import Correlator


@pytest.mark.parametrize(
    ("image_shape", "kernel_shape"),
    [((100, 137), (9, 9)), ((64, 50), (8, 11)), ((300, 200), (99, 99)), ((50, 60), (61, 61))],
)
def test_a_correlation_is_filter2d_with_zeros_beyond_the_image(image_shape, kernel_shape):
    rng = np.random.default_rng(7)
    image = rng.random(image_shape).astype(np.float32)
    kernel = rng.random(kernel_shape).astype(np.float32)
    correlator = Correlator(image_shape, max(kernel_shape))

    found = correlator.correlate(correlator.image(image), correlator.kernel(kernel))

    expected = cv2.filter2D(image, cv2.CV_32F, kernel, borderType=cv2.BORDER_CONSTANT)
    assert found.shape == image_shape
    np.testing.assert_allclose(found, expected, atol=1e-5 * kernel.size)


def test_one_image_spectrum_serves_kernels_of_several_sizes():
    image = np.zeros((80, 90), np.float32)
    image[40, 45] = 1.0  # a unit impulse: the correlation is the kernel mirrored about it
    correlator = Correlator(image.shape, 31)
    spectrum = correlator.image(image)
    for n in (5, 31):
        kernel = np.arange(n * n, dtype=np.float32).reshape(n, n)
        found = correlator.correlate(spectrum, correlator.kernel(kernel))
        half = n // 2
        patch = found[40 - half : 40 + half + 1, 45 - half : 45 + half + 1]
        np.testing.assert_allclose(patch, kernel[::-1, ::-1], atol=1e-3)
        assert abs(found).sum() == pytest.approx(kernel.sum(), rel=1e-4)


def test_an_image_or_kernel_of_the_wrong_size_is_refused():
    correlator = Correlator((40, 40), 9)
    with pytest.raises(ValueError, match="image of shape"):
        correlator.image(np.zeros((40, 41), np.float32))
    with pytest.raises(ValueError, match="kernel of shape"):
        correlator.kernel(np.ones((11, 11), np.float32))
